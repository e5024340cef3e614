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
// output columns of at least half of its tile of eight rows. Measured with BM_MaxPooling: it is
// 1.5-2.4x faster than the separable kernel on ResNet's and SqueezeNet's 3x3 stride-2 poolings and
// 3.4x on a 7-row output; shorter columns were not measured. It visits every tap of every window,
// padding included, so windows of more than kMaxPoolTiledMaxTaps taps (a hostile file's 2^30 x
// 2^30 one) stay with the kernels that visit only the taps inside the input.
inline constexpr int kMaxPoolTiledMinRows = 4;
inline constexpr int kMaxPoolTiledMaxTaps = 256;
bool MaxPoolTiledApplies(const Window2d& window, const PoolingPlane& plane);

// Floats of scratch MaxPoolTiled needs for `plane`: one padded input column and the columns'
// maxima.
size_t MaxPoolTiledScratchSize(const Window2d& window, const PoolingPlane& plane);

// The same result again, the fast way on the maps after a network's stem, separable as
// MaxPoolSeparable but a vector of eight rows at a time in both passes: each input column is
// copied into a padded, phase-split column (kernel/padded_plane.hpp, -infinity for padding),
// where each tap of a run of output rows is one contiguous vector load whatever the stride; the
// maxima down it over the window's rows are taken in registers and stored once; then each output
// column is the maximum across the window's columns of those. The input is read once, and the
// scratch is one column plus an output's height per padded column (25 kB for SqueezeNet's first
// pooling, where the whole padded plane took 51 kB and was filled and read per tap).
void MaxPoolTiled(const Window2d& window, const PoolingPlane& plane, const float* input,
                  float* output, float* scratch);

}  // namespace lumen

#endif  // LUMEN_KERNEL_MAX_POOLING_KERNELS_HPP_
