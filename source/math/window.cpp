#include "math/window.hpp"

#include <cstdint>

#include "base/checked_math.hpp"
#include "lumen/error.hpp"

namespace lumen {

int SlidingOutputSize(int input, int kernel, int stride, int dilation, int pad_before,
                      int pad_after, bool ceil_mode) {
  if (kernel < 1 || stride < 1 || dilation < 1 || pad_before < 0 || pad_after < 0 || input < 0) {
    throw Error(Concat("invalid window: input ", input, ", kernel ", kernel, ", stride ", stride,
                       ", dilation ", dilation, ", padding ", pad_before, "/", pad_after));
  }
  // Every term fits in 64 bits (ints multiplied by ints), so only the result needs checking.
  const int64_t span =
      int64_t{input} + pad_before + pad_after - int64_t{dilation} * (int64_t{kernel} - 1) - 1;
  if (span < 0) return 0;
  int64_t output = (span + (ceil_mode ? stride - 1 : 0)) / stride + 1;
  // In ceil mode the last window must still start inside the input or its leading padding.
  if (ceil_mode && (output - 1) * stride >= int64_t{input} + pad_before) --output;
  return CheckedInt(output, "sliding window output size");
}

int WindowAxis::OutputSize(int input, bool ceil_mode) const {
  return SlidingOutputSize(input, kernel, stride, dilation, pad_before, pad_after, ceil_mode);
}

int Window2d::OutputHeight(int input_h, bool ceil_mode) const {
  return SlidingOutputSize(input_h, kernel_h, stride_h, dilation_h, pad_top, pad_bottom, ceil_mode);
}

int Window2d::OutputWidth(int input_w, bool ceil_mode) const {
  return SlidingOutputSize(input_w, kernel_w, stride_w, dilation_w, pad_left, pad_right, ceil_mode);
}

}  // namespace lumen
