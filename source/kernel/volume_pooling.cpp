#include "kernel/volume_pooling.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernel/adaptive_pooling.hpp"

namespace lumen {
namespace {

// The height (`height` true) or width axis of a 2-D window.
WindowAxis PlaneAxis(const Window2d& w, bool height) {
  return height ? WindowAxis{w.kernel_h, w.stride_h, w.dilation_h, w.pad_top, w.pad_bottom}
                : WindowAxis{w.kernel_w, w.stride_w, w.dilation_w, w.pad_left, w.pad_right};
}

// The taps of an adaptive window as AxisTaps.
AxisTaps AdaptiveTaps(int64_t index, int input, int output) {
  const AdaptiveWindow window = AdaptiveWindowOf(index, input, output);
  return AxisTaps{window.begin, window.end, 1};
}

// Writes every output's maximum and its index; taps_of(axis, index) gives the taps of output
// position `index` along axis 0 (depth), 1 (height) or 2 (width). The walk both index kernels
// share: PyTorch's order (depth, then rows, then columns), so that ties go to the same element.
template <typename TapsOf>
void MaxWithIndices(const PoolingVolume& volume, bool flatten_rows, const float* input,
                    float* output, float* indices, TapsOf taps_of) {
  const int64_t input_h = volume.plane.input_h;
  const int64_t input_w = volume.plane.input_w;
  const int64_t output_h = volume.plane.output_h;
  // PyTorch's flattened position of input (d, h, w); a 1-D pooling's rows are its channels.
  const auto position = [&](int64_t d, int64_t h, int64_t w) {
    return flatten_rows ? (d * input_h + h) * input_w + w : w;
  };
  for (int64_t od = 0; od < volume.output_d; ++od) {
    const AxisTaps depth = taps_of(0, od);
    for (int64_t ow = 0; ow < volume.plane.output_w; ++ow) {
      const AxisTaps columns = taps_of(2, ow);
      for (int64_t oh = 0; oh < output_h; ++oh) {
        const AxisTaps rows = taps_of(1, oh);
        float best = -std::numeric_limits<float>::infinity();
        int64_t best_position = position(depth.begin, rows.begin, columns.begin);
        for (int64_t d = depth.begin; d < depth.end; d += depth.step) {
          for (int64_t h = rows.begin; h < rows.end; h += rows.step) {
            for (int64_t w = columns.begin; w < columns.end; w += columns.step) {
              const float value = input[(d * input_w + w) * input_h + h];
              if (value > best || std::isnan(value)) {
                best = value;
                best_position = position(d, h, w);
              }
            }
          }
        }
        const size_t at = static_cast<size_t>((od * volume.plane.output_w + ow) * output_h + oh);
        output[at] = best;
        indices[at] = static_cast<float>(best_position);
      }
    }
  }
}

}  // namespace

AxisTaps SlidingTaps(const WindowAxis& axis, int input, int64_t index) {
  // In 64 bits: a hostile window's start and extent do not fit in an int.
  const int64_t start = index * axis.stride - axis.pad_before;
  const int64_t last_inside = int64_t{input} - 1 - start;  // largest k * dilation still inside
  const int64_t taps =
      last_inside < 0 ? 0 : std::min<int64_t>(axis.kernel, last_inside / axis.dilation + 1);
  const int64_t skipped = start < 0 ? (-start + axis.dilation - 1) / axis.dilation : 0;
  if (skipped >= taps) return AxisTaps{0, 0, 1};
  return AxisTaps{start + skipped * axis.dilation, start + (taps - 1) * axis.dilation + 1,
                  axis.dilation};
}

float AverageDepthDivisor(const WindowAxis& depth, const AverageDivisor& divisor, int input_d,
                          int64_t index) {
  if (divisor.divisor_override != 0) return 1.0f;
  const int64_t begin_padded = index * depth.stride - depth.pad_before;
  const int64_t end_padded =
      std::min<int64_t>(begin_padded + depth.kernel, int64_t{input_d} + depth.pad_after);
  if (divisor.count_include_pad) return static_cast<float>(end_padded - begin_padded);
  return static_cast<float>(std::min<int64_t>(end_padded, input_d) -
                            std::max<int64_t>(begin_padded, 0));
}

size_t VolumeScratchSize(const PoolingVolume& volume) {
  if (volume.input_d == 1 && volume.output_d == 1) return 0;
  return volume.OutputSliceSize() * volume.input_d;
}

void MaxOfSlices(const float* slices, size_t slice_size, const AxisTaps& taps, float* output) {
  std::fill(output, output + slice_size, -std::numeric_limits<float>::infinity());
  for (int64_t d = taps.begin; d < taps.end; d += taps.step) {
    const float* slice = slices + d * slice_size;
    for (size_t i = 0; i < slice_size; ++i) {
      // A NaN in the slice wins; a NaN already in output stays (the comparison fails).
      if (slice[i] > output[i] || std::isnan(slice[i])) output[i] = slice[i];
    }
  }
}

void MeanOfSlices(const float* slices, size_t slice_size, const AxisTaps& taps, float divisor,
                  float* output) {
  std::fill(output, output + slice_size, 0.0f);
  for (int64_t d = taps.begin; d < taps.end; d += taps.step) {
    const float* slice = slices + d * slice_size;
    for (size_t i = 0; i < slice_size; ++i) output[i] += slice[i];
  }
  for (size_t i = 0; i < slice_size; ++i) output[i] /= divisor;
}

void AveragePoolVolume(const Window3d& window, const AverageDivisor& divisor,
                       const PoolingVolume& volume, const float* input, float* output,
                       float* scratch) {
  PoolVolume(
      volume, input, output, scratch,
      [&](const float* slice, float* pooled) {
        AveragePool(window.plane, divisor, volume.plane, slice, pooled);
      },
      [&](int64_t index, const float* pooled, float* target) {
        MeanOfSlices(pooled, volume.OutputSliceSize(),
                     SlidingTaps(window.depth, volume.input_d, index),
                     AverageDepthDivisor(window.depth, divisor, volume.input_d, index), target);
      });
}

void AdaptivePoolVolume(const PoolingVolume& volume, bool maximum, const float* input,
                        float* output, float* scratch) {
  PoolVolume(
      volume, input, output, scratch,
      [&](const float* slice, float* pooled) {
        if (maximum) {
          AdaptiveMaxPool(volume.plane, slice, pooled);
        } else {
          AdaptiveAveragePool(volume.plane, slice, pooled);
        }
      },
      [&](int64_t index, const float* pooled, float* target) {
        const AxisTaps depth = AdaptiveTaps(index, volume.input_d, volume.output_d);
        if (maximum) {
          MaxOfSlices(pooled, volume.OutputSliceSize(), depth, target);
        } else {
          MeanOfSlices(pooled, volume.OutputSliceSize(), depth,
                       static_cast<float>(depth.end - depth.begin), target);
        }
      });
}

void MaxPoolWithIndices(const Window3d& window, const PoolingVolume& volume, bool flatten_rows,
                        const float* input, float* output, float* indices) {
  const WindowAxis axes[3] = {window.depth, PlaneAxis(window.plane, true),
                              PlaneAxis(window.plane, false)};
  const int inputs[3] = {volume.input_d, volume.plane.input_h, volume.plane.input_w};
  MaxWithIndices(volume, flatten_rows, input, output, indices, [&](int axis, int64_t index) {
    return SlidingTaps(axes[axis], inputs[axis], index);
  });
}

void AdaptiveMaxPoolWithIndices(const PoolingVolume& volume, bool flatten_rows, const float* input,
                                float* output, float* indices) {
  const int inputs[3] = {volume.input_d, volume.plane.input_h, volume.plane.input_w};
  const int outputs[3] = {volume.output_d, volume.plane.output_h, volume.plane.output_w};
  MaxWithIndices(volume, flatten_rows, input, output, indices, [&](int axis, int64_t index) {
    return AdaptiveTaps(index, inputs[axis], outputs[axis]);
  });
}

}  // namespace lumen
