#include "lumen/kernel/max_pooling_kernels.hpp"

#include <algorithm>
#include <limits>

namespace lumen {
namespace {

constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();

// max(a, b) where a NaN in b wins (a NaN in a is kept by the comparison failing).
inline float MaxKeepingNan(float a, float b) { return (b > a || b != b) ? b : a; }

// Output positions o whose tap o * stride + offset lies in [0, size).
void ValidRange(int offset, int stride, int size, int outputs, int* first, int* end) {
  *first = std::clamp((-offset + stride - 1) / stride, 0, outputs);
  *end = std::clamp((size - offset + stride - 1) / stride, *first, outputs);
}

}  // namespace

void MaxPoolReference(const Window2d& w, const PoolingPlane& plane, const float* input,
                      float* output) {
  // LESSON 07 BEGIN: the maximum over each window, NaN winning
  for (int ox = 0; ox < plane.output_w; ++ox) {
    for (int oy = 0; oy < plane.output_h; ++oy) {
      float maximum = kMinusInfinity;
      for (int kx = 0; kx < w.kernel_w; ++kx) {
        const int ix = ox * w.stride_w - w.pad_left + kx * w.dilation_w;
        if (ix < 0 || ix >= plane.input_w) continue;
        for (int ky = 0; ky < w.kernel_h; ++ky) {
          const int iy = oy * w.stride_h - w.pad_top + ky * w.dilation_h;
          if (iy < 0 || iy >= plane.input_h) continue;
          maximum = MaxKeepingNan(maximum, input[ix * plane.input_h + iy]);
        }
      }
      output[ox * plane.output_h + oy] = maximum;
    }
  }
  // LESSON 07 END
}

void MaxPoolSeparable(const Window2d& w, const PoolingPlane& plane, const float* input,
                      float* output, float* workspace) {
  // LESSON 07 BEGIN: a max down the columns, then across them
  const int output_h = plane.output_h;
  // Pass 1: workspace column ix, row oy = max over the window's rows of input column ix.
  for (int ix = 0; ix < plane.input_w; ++ix) {
    const float* column = input + ix * plane.input_h;
    float* maxima = workspace + ix * output_h;
    std::fill(maxima, maxima + output_h, kMinusInfinity);
    for (int ky = 0; ky < w.kernel_h; ++ky) {
      const int offset = ky - w.pad_top;
      int first = 0, end = 0;
      ValidRange(offset, w.stride_h, plane.input_h, output_h, &first, &end);
      for (int oy = first; oy < end; ++oy) {
        maxima[oy] = MaxKeepingNan(maxima[oy], column[oy * w.stride_h + offset]);
      }
    }
  }
  // Pass 2: output column ox = max over the window's columns of the workspace columns.
  for (int ox = 0; ox < plane.output_w; ++ox) {
    float* target = output + ox * output_h;
    std::fill(target, target + output_h, kMinusInfinity);
    for (int kx = 0; kx < w.kernel_w; ++kx) {
      const int ix = ox * w.stride_w - w.pad_left + kx;
      if (ix < 0 || ix >= plane.input_w) continue;
      const float* maxima = workspace + ix * output_h;
      for (int oy = 0; oy < output_h; ++oy) target[oy] = MaxKeepingNan(target[oy], maxima[oy]);
    }
  }
  // LESSON 07 END
}

}  // namespace lumen
