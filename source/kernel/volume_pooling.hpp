// Pooling over a volume (3-D pooling) on top of the plane kernels: a box's maximum is the maximum
// over its depth slices of each slice's window maximum, and its mean the mean over depth of each
// slice's window mean (every slice's window has the same size), so a 3-D pooling pools each input
// depth slice with the 2-D kernel and then combines the pooled slices along depth. A 2-D pooling is
// the depth-1 case, which skips the second pass.
//
// Also the kernels that return PyTorch's argmax indices (return_indices=True), which walk the
// whole box in PyTorch's order, since ties go to the first maximum it meets.
#ifndef LUMEN_KERNEL_VOLUME_POOLING_HPP_
#define LUMEN_KERNEL_VOLUME_POOLING_HPP_

#include <cstddef>
#include <cstdint>

#include "kernel/average_pooling.hpp"
#include "kernel/pooling_plane.hpp"
#include "math/window.hpp"

namespace lumen {

// One channel's geometry: input_d column-major input_h x input_w slices one after another in,
// output_d slices of output_h x output_w out (depth 1 for a 2-D pooling).
struct PoolingVolume {
  PoolingPlane plane;
  int input_d = 1, output_d = 1;

  // Floats of one input slice / one output slice / the whole input / the whole output.
  size_t InputSliceSize() const { return static_cast<size_t>(plane.input_h) * plane.input_w; }
  size_t OutputSliceSize() const { return static_cast<size_t>(plane.output_h) * plane.output_w; }
  size_t InputSize() const { return InputSliceSize() * input_d; }
  size_t OutputSize() const { return OutputSliceSize() * output_d; }
};

// Input positions begin, begin + step, ... (before end) along one axis that one output position
// pools: the depth slices one output slice combines, or the rows of one window.
struct AxisTaps {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t step = 1;
};

// The taps of output position `index` under a sliding window along an axis of `input` positions
// (only the taps inside the input).
AxisTaps SlidingTaps(const WindowAxis& axis, int input, int64_t index);

// What the sum over the depth taps of output slice `index` divides by in an average pooling whose
// slices are already averaged: PyTorch's divisor is a product over the axes of each axis' count
// (the window clipped to input + padding with count_include_pad, to the input otherwise), and 1
// with a divisor_override, which the slices already divided by.
float AverageDepthDivisor(const WindowAxis& depth, const AverageDivisor& divisor, int input_d,
                          int64_t index);

// Floats of scratch PoolVolume needs: the pooled input slices (none at depth 1).
size_t VolumeScratchSize(const PoolingVolume& volume);

// Pools one channel's volume: pool_plane(input slice, pooled slice) pools each input depth slice
// into `scratch` (VolumeScratchSize floats), then combine_slices(output index, pooled slices,
// output slice) combines them along depth. At depth 1 pool_plane writes the output directly.
template <typename PoolPlane, typename CombineSlices>
void PoolVolume(const PoolingVolume& volume, const float* input, float* output, float* scratch,
                PoolPlane pool_plane, CombineSlices combine_slices) {
  if (volume.input_d == 1 && volume.output_d == 1) {
    pool_plane(input, output);
    return;
  }
  for (int d = 0; d < volume.input_d; ++d) {
    pool_plane(input + d * volume.InputSliceSize(), scratch + d * volume.OutputSliceSize());
  }
  for (int d = 0; d < volume.output_d; ++d) {
    combine_slices(d, scratch, output + d * volume.OutputSliceSize());
  }
}

// output = the element-wise maximum of slices taps.begin, taps.begin + taps.step, ... of
// `slices` (each `slice_size` floats); NaN wins, as in PyTorch.
void MaxOfSlices(const float* slices, size_t slice_size, const AxisTaps& taps, float* output);

// output = the element-wise sum of slices taps.begin .. taps.end - 1 divided by `divisor`.
void MeanOfSlices(const float* slices, size_t slice_size, const AxisTaps& taps, float divisor,
                  float* output);

// Average pooling of one channel's volume (PyTorch's avg_pool1d/2d/3d): each depth slice by
// AveragePool (kernel/average_pooling.hpp), then the mean across depth. `scratch` holds
// VolumeScratchSize floats.
void AveragePoolVolume(const Window3d& window, const AverageDivisor& divisor,
                       const PoolingVolume& volume, const float* input, float* output,
                       float* scratch);

// Adaptive pooling of one channel's volume (PyTorch's adaptive_max/avg_pool1d/2d/3d): each depth
// slice by AdaptiveMaxPool or AdaptiveAveragePool (kernel/adaptive_pooling.hpp), then the maximum
// or the mean over each output slice's adaptive window of depth slices. `scratch` holds
// VolumeScratchSize floats.
void AdaptivePoolVolume(const PoolingVolume& volume, bool maximum, const float* input,
                        float* output, float* scratch);

// Max pooling with PyTorch's indices: each output is its window's maximum (padding never wins,
// NaN wins) and `indices` the maximum's flattened position in the channel, (d * H + h) * W + w,
// or w alone when `flatten_rows` is false (a 1-D pooling, whose rows are channels). Ties go to
// the first maximum in PyTorch's (d, h, w) order. The definition; indices stored as floats, exact
// below 2^24.
void MaxPoolWithIndices(const Window3d& window, const PoolingVolume& volume, bool flatten_rows,
                        const float* input, float* output, float* indices);

// The same for adaptive max pooling (kernel/adaptive_pooling.hpp's windows).
void AdaptiveMaxPoolWithIndices(const PoolingVolume& volume, bool flatten_rows, const float* input,
                                float* output, float* indices);

}  // namespace lumen

#endif  // LUMEN_KERNEL_VOLUME_POOLING_HPP_
