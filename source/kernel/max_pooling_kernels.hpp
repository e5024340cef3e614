// Max pooling of one channel, two ways: the definition (the reference) and a fast separable one.
#ifndef LUMEN_KERNEL_MAX_POOLING_KERNELS_HPP_
#define LUMEN_KERNEL_MAX_POOLING_KERNELS_HPP_

#include <cstddef>

#include "kernel/pooling_plane.hpp"
#include "math/window.hpp"

namespace lumen {

// Floats of scratch MaxPoolSeparable needs for `plane` (input_w x output_h); throws lumen::Error
// when the count does not fit in size_t.
size_t MaxPoolSeparableScratchSize(const PoolingPlane& plane);

// Each output is the maximum over its window's taps that fall inside the input (padding never
// wins); NaN wins over everything, as in PyTorch. Only taps inside the input are visited, so the
// cost is bounded by the input's size however large the window is.
void MaxPoolReference(const Window2d& window, const PoolingPlane& plane, const float* input,
                      float* output);

// The same result in two passes, because the maximum over a rectangle is the maximum over its
// columns of the maximum down each column: first down every input column (into `scratch`,
// MaxPoolSeparableScratchSize floats), then across. Every inner loop runs over contiguous output
// rows, so it vectorises. Needs dilation 1.
void MaxPoolSeparable(const Window2d& window, const PoolingPlane& plane, const float* input,
                      float* output, float* scratch);

// Whether MaxPoolTiled computes `window` on `plane`: dilation 1 (as for the separable kernel) and
// output columns of at least half of its tile of eight rows (shorter ones were not measured). It
// visits every tap of every window inside the input's columns and the padded rows, so windows of
// more than kMaxPoolTiledMaxTaps taps (a hostile file's 2^30 x 2^30 one) stay with the kernels
// that visit only the taps inside the input.
inline constexpr int kMaxPoolTiledMinRows = 4;
inline constexpr int kMaxPoolTiledMaxTaps = 256;
bool MaxPoolTiledApplies(const Window2d& window, const PoolingPlane& plane);

// Floats of scratch MaxPoolTiled needs for `plane`: one padded column, as long as the input's
// padded rows and the rows its last tile of output rows reads.
size_t MaxPoolTiledScratchSize(const Window2d& window, const PoolingPlane& plane);

// The same result again, the fast way, separable as MaxPoolSeparable but across first and in
// vectors of eight rows: for each output column, the maximum across the window's columns of each
// input row (contiguous loads) goes into one padded column (-infinity above and below the input,
// where padding never wins), and each tile of eight output rows is the maximum down the window's
// rows of it, in registers (3x3 stride-2 windows through pairwise maxima and one permute). The
// input is read in place and the scratch is one column. vmaxps drops NaN, so the kernel sums what
// it reads and pools a channel whose sum is NaN again by the definition. BM_MaxPooling: 2-4x
// faster than the version before it, which copied each input column into a phase-split column.
void MaxPoolTiled(const Window2d& window, const PoolingPlane& plane, const float* input,
                  float* output, float* scratch);

}  // namespace lumen

#endif  // LUMEN_KERNEL_MAX_POOLING_KERNELS_HPP_
