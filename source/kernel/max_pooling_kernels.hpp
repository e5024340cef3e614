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

}  // namespace lumen

#endif  // LUMEN_KERNEL_MAX_POOLING_KERNELS_HPP_
