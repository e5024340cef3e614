// Per-thread scratch memory for kernels: allocated the first time it is needed, then reused.
//
// Kernels that work on one block of data at a time (a slice of the im2col matrix, a block of
// Winograd tiles, a packed slice of a GEMM operand) need a few hundred kilobytes of private
// workspace per thread. Keeping it per thread, instead of per layer, shares it between all layers,
// and growing it only when a larger request arrives means Forward stops allocating after its
// first run.
#ifndef LUMEN_BASE_SCRATCH_HPP_
#define LUMEN_BASE_SCRATCH_HPP_

#include <cstddef>

namespace lumen {

// Which of a thread's scratch buffers; a kernel uses different slots for buffers alive together.
enum class ScratchSlot { kGemmPacking, kFirst, kSecond, kThird, kCount };

// A buffer of at least `count` floats owned by the calling thread (contents unspecified).
float* ThreadScratch(ScratchSlot slot, size_t count);

// Grows every thread's buffers to the largest size any thread has asked for so far, if some thread
// asked for more since the last call. Which thread takes which task can change from one run to the
// next, so RuntimeGraph calls this after each run: later runs then never allocate.
void ShareScratchSizes();

}  // namespace lumen

#endif  // LUMEN_BASE_SCRATCH_HPP_
