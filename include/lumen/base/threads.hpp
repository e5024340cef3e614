// The single knob for parallelism: OpenMP loops in the layers and OpenBLAS's GEMM.
#ifndef LUMEN_BASE_THREADS_HPP_
#define LUMEN_BASE_THREADS_HPP_

#include <string>

namespace lumen {

// Sets how many threads every parallel part of Lumen may use (OpenMP and OpenBLAS together).
void SetNumThreads(int thread_count);

// Returns the thread count that SetNumThreads last set (or the OpenMP default).
int GetNumThreads();

// Describes the BLAS in use (library, threading model, core type), for logs and benchmarks.
std::string BlasDescription();

}  // namespace lumen

#endif  // LUMEN_BASE_THREADS_HPP_
