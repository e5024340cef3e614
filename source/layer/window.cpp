#include "lumen/layer/window.hpp"

#include "lumen/base/error.hpp"

namespace lumen {

int SlidingOutputSize(int input, int kernel, int stride, int dilation, int pad_before,
                      int pad_after, bool ceil_mode) {
  const int span = input + pad_before + pad_after - dilation * (kernel - 1) - 1;
  if (span < 0) return 0;
  int output = (span + (ceil_mode ? stride - 1 : 0)) / stride + 1;
  // In ceil mode the last window must still start inside the input or its leading padding.
  if (ceil_mode && (output - 1) * stride >= input + pad_before) --output;
  return output;
}

int Window2d::OutputHeight(int input_h, bool ceil_mode) const {
  return SlidingOutputSize(input_h, kernel_h, stride_h, dilation_h, pad_top, pad_bottom, ceil_mode);
}

int Window2d::OutputWidth(int input_w, bool ceil_mode) const {
  return SlidingOutputSize(input_w, kernel_w, stride_w, dilation_w, pad_left, pad_right, ceil_mode);
}

Window2d ReadWindow2d(const RuntimeOperator& op, bool stride_defaults_to_kernel) {
  Window2d window;
  const std::vector<int> kernel = op.IntPairParam("kernel_size");
  window.kernel_h = kernel[0];
  window.kernel_w = kernel[1];
  // pnnx writes stride=() or None for pooling called without a stride.
  const bool has_stride = op.HasParam("stride") && !op.Param("stride").IsNone();
  const std::vector<int> stride = has_stride                  ? op.IntPairParam("stride")
                                  : stride_defaults_to_kernel ? kernel
                                                              : std::vector<int>{1, 1};
  window.stride_h = stride[0];
  window.stride_w = stride[1];
  const std::vector<int> dilation =
      op.HasParam("dilation") ? op.IntPairParam("dilation") : std::vector<int>{1, 1};
  window.dilation_h = dilation[0];
  window.dilation_w = dilation[1];
  if (window.kernel_h < 1 || window.kernel_w < 1 || window.stride_h < 1 || window.stride_w < 1 ||
      window.dilation_h < 1 || window.dilation_w < 1) {
    throw Error(Concat(op.Describe(), ": kernel_size, stride and dilation must be positive"));
  }
  if (!op.HasParam("padding")) return window;
  const RuntimeParameter& padding = op.Param("padding");
  if (padding.type() == RuntimeParameter::Type::kString) {
    if (padding.AsString() == "same") {
      const int total_h = window.dilation_h * (window.kernel_h - 1);
      const int total_w = window.dilation_w * (window.kernel_w - 1);
      window.pad_top = total_h / 2;
      window.pad_bottom = total_h - window.pad_top;
      window.pad_left = total_w / 2;
      window.pad_right = total_w - window.pad_left;
    } else if (padding.AsString() != "valid") {
      throw Error(Concat(op.Describe(), ": unknown padding '", padding.AsString(), "'"));
    }
    return window;
  }
  const std::vector<int> pad = op.IntPairParam("padding");
  if (pad[0] < 0 || pad[1] < 0) throw Error(Concat(op.Describe(), ": negative padding"));
  window.pad_top = window.pad_bottom = pad[0];
  window.pad_left = window.pad_right = pad[1];
  return window;
}

}  // namespace lumen
