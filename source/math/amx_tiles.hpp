// The AMX tile registers' configuration, shared by the bf16 and int8 GEMMs' AMX micro-kernels:
// eight tiles of 16 rows of 64 bytes (16 x 16 fp32 or int32 sums, 16 rows of 16 bf16 pairs or 16
// byte quads), the shape both kernels use.
//
// Tile registers are per thread: AmxTilesBegin() before the first AMX micro-kernel of a run of
// them on a thread, AmxTilesEnd() after the last, which frees the tile state the OS would
// otherwise save on every context switch. Run only where the CPU has AMX and the process its
// permission (base/cpu_features).
#ifndef LUMEN_MATH_AMX_TILES_HPP_
#define LUMEN_MATH_AMX_TILES_HPP_

#include <cstddef>

namespace lumen {

// Loads the tile configuration on the calling thread.
void AmxTilesBegin();
// Releases the calling thread's tiles.
void AmxTilesEnd();

// Both micro-kernels keep a 32 x 32 block of 4-byte sums (fp32 or int32) of the column-major C in
// tile registers 0-3: register 2a + b holds the 16 x 16 tile whose 16 rows, each 64 bytes, start
// at sums + a * 16 * stride_bytes + b * 64 (16 of C's columns by 16 of its rows). Loads that
// block from C (stride_bytes apart per column), or zeroes the four tiles when not `accumulate`.
void AmxLoadSumTiles(const void* sums, size_t stride_bytes, bool accumulate);
// Stores tile registers 0-3 back to C, as AmxLoadSumTiles reads them.
void AmxStoreSumTiles(void* sums, size_t stride_bytes);

}  // namespace lumen

#endif  // LUMEN_MATH_AMX_TILES_HPP_
