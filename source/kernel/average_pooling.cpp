#include "kernel/average_pooling.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace lumen {

void AveragePool(const Window2d& w, const AverageDivisor& divisor, const PoolingPlane& plane,
                 const float* input, float* output) {
  const int64_t input_h = plane.input_h;
  const int64_t input_w = plane.input_w;
  const int output_h = plane.output_h;
  for (int ox = 0; ox < plane.output_w; ++ox) {
    // PyTorch's rule: the window is clipped to input + padding for count_include_pad's divisor,
    // then to the input for the sum (and for the divisor otherwise). In 64 bits: a hostile
    // window's ends do not fit in an int.
    const int64_t x_begin_padded = int64_t{ox} * w.stride_w - w.pad_left;
    const int64_t x_end_padded = std::min(x_begin_padded + w.kernel_w, input_w + w.pad_right);
    const int64_t x_begin = std::max<int64_t>(x_begin_padded, 0);
    const int64_t x_end = std::min(x_end_padded, input_w);
    for (int oy = 0; oy < output_h; ++oy) {
      const int64_t y_begin_padded = int64_t{oy} * w.stride_h - w.pad_top;
      const int64_t y_end_padded = std::min(y_begin_padded + w.kernel_h, input_h + w.pad_bottom);
      const int64_t y_begin = std::max<int64_t>(y_begin_padded, 0);
      const int64_t y_end = std::min(y_end_padded, input_h);
      float sum = 0.0f;
      for (int64_t ix = x_begin; ix < x_end; ++ix) {
        for (int64_t iy = y_begin; iy < y_end; ++iy) sum += input[ix * input_h + iy];
      }
      const int64_t count = divisor.divisor_override != 0 ? divisor.divisor_override
                            : divisor.count_include_pad
                                ? (y_end_padded - y_begin_padded) * (x_end_padded - x_begin_padded)
                                : (y_end - y_begin) * (x_end - x_begin);
      output[static_cast<size_t>(ox) * output_h + oy] =
          count > 0 ? sum / static_cast<float>(count) : 0.0f;
    }
  }
}

}  // namespace lumen
