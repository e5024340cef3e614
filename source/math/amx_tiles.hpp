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

namespace lumen {

// Loads the tile configuration on the calling thread.
void AmxTilesBegin();
// Releases the calling thread's tiles.
void AmxTilesEnd();

}  // namespace lumen

#endif  // LUMEN_MATH_AMX_TILES_HPP_
