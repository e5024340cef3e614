#include "layer/window.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "base/checked_math.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// A 1-D operator's parameter: an int or a one-element list.
int SingleInt(const LayerConfig& op, const std::string& key) {
  const Parameter& parameter = op.Param(key);
  if (parameter.type() == Parameter::Type::kInt) return parameter.AsInt();
  const std::vector<int> values = op.IntArrayParam(key);
  if (values.size() != 1) {
    throw Error(
        Concat(op.Describe(), ": '", key, "' must be one int, got '", parameter.text(), "'"));
  }
  return values[0];
}

}  // namespace

Window2d ReadWindow1d(const LayerConfig& op, bool stride_defaults_to_kernel) {
  Window2d window;
  window.kernel_w = SingleInt(op, "kernel_size");
  const bool has_stride = op.HasParam("stride") && !op.Param("stride").IsNone();
  window.stride_w = has_stride                  ? SingleInt(op, "stride")
                    : stride_defaults_to_kernel ? window.kernel_w
                                                : 1;
  window.dilation_w = op.HasParam("dilation") ? SingleInt(op, "dilation") : 1;
  if (window.kernel_w < 1 || window.stride_w < 1 || window.dilation_w < 1) {
    throw Error(Concat(op.Describe(), ": kernel_size, stride and dilation must be positive"));
  }
  if (!op.HasParam("padding")) return window;
  const Parameter& padding = op.Param("padding");
  if (padding.type() == Parameter::Type::kString) {
    if (padding.AsString() == "same") {
      const int total = CheckedInt(int64_t{window.dilation_w} * (window.kernel_w - 1), "padding");
      window.pad_left = total / 2;
      window.pad_right = total - window.pad_left;
    } else if (padding.AsString() != "valid") {
      throw Error(Concat(op.Describe(), ": unknown padding '", padding.AsString(), "'"));
    }
    return window;
  }
  const int pad = SingleInt(op, "padding");
  if (pad < 0) throw Error(Concat(op.Describe(), ": negative padding"));
  window.pad_left = window.pad_right = pad;
  return window;
}

Window2d ReadWindow2d(const LayerConfig& op, bool stride_defaults_to_kernel) {
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
  const Parameter& padding = op.Param("padding");
  if (padding.type() == Parameter::Type::kString) {
    if (padding.AsString() == "same") {
      const int total_h = CheckedInt(int64_t{window.dilation_h} * (window.kernel_h - 1), "padding");
      const int total_w = CheckedInt(int64_t{window.dilation_w} * (window.kernel_w - 1), "padding");
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
