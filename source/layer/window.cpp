#include "layer/window.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "base/checked_math.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// An `axes`-D operator's parameter: an int (the same on every axis) or a list of 1 or `axes`
// ints.
std::vector<int> IntPerAxis(const LayerConfig& op, const std::string& key, size_t axes) {
  const Parameter& parameter = op.Param(key);
  if (parameter.type() == Parameter::Type::kInt) return std::vector<int>(axes, parameter.AsInt());
  std::vector<int> values = op.IntArrayParam(key);
  if (values.size() == 1) values.resize(axes, values[0]);
  if (values.size() != axes) {
    throw Error(Concat(op.Describe(), ": '", key, "' must be ",
                       axes == 1 ? std::string("one int") : Concat(axes, " ints"), ", got '",
                       parameter.text(), "'"));
  }
  return values;
}

// The height and width axes of a 2-D window.
Window2d PlaneWindow(const WindowAxis& height, const WindowAxis& width) {
  Window2d window;
  window.kernel_h = height.kernel;
  window.stride_h = height.stride;
  window.dilation_h = height.dilation;
  window.pad_top = height.pad_before;
  window.pad_bottom = height.pad_after;
  window.kernel_w = width.kernel;
  window.stride_w = width.stride;
  window.dilation_w = width.dilation;
  window.pad_left = width.pad_before;
  window.pad_right = width.pad_after;
  return window;
}

}  // namespace

std::vector<WindowAxis> ReadWindowAxes(const LayerConfig& op, size_t axes,
                                       bool stride_defaults_to_kernel) {
  const std::vector<int> kernel = IntPerAxis(op, "kernel_size", axes);
  // pnnx writes stride=() or None for pooling called without a stride.
  const bool has_stride = op.HasParam("stride") && !op.Param("stride").IsNone();
  const std::vector<int> stride = has_stride                  ? IntPerAxis(op, "stride", axes)
                                  : stride_defaults_to_kernel ? kernel
                                                              : std::vector<int>(axes, 1);
  const std::vector<int> dilation =
      op.HasParam("dilation") ? IntPerAxis(op, "dilation", axes) : std::vector<int>(axes, 1);
  std::vector<WindowAxis> window(axes);
  for (size_t i = 0; i < axes; ++i) {
    window[i].kernel = kernel[i];
    window[i].stride = stride[i];
    window[i].dilation = dilation[i];
    if (kernel[i] < 1 || stride[i] < 1 || dilation[i] < 1) {
      throw Error(Concat(op.Describe(), ": kernel_size, stride and dilation must be positive"));
    }
  }
  if (!op.HasParam("padding")) return window;
  const Parameter& padding = op.Param("padding");
  if (padding.type() == Parameter::Type::kString) {
    if (padding.AsString() == "same") {
      for (WindowAxis& axis : window) {
        const int total = CheckedInt(int64_t{axis.dilation} * (axis.kernel - 1), "padding");
        axis.pad_before = total / 2;
        axis.pad_after = total - axis.pad_before;
      }
    } else if (padding.AsString() != "valid") {
      throw Error(Concat(op.Describe(), ": unknown padding '", padding.AsString(), "'"));
    }
    return window;
  }
  const std::vector<int> pad = IntPerAxis(op, "padding", axes);
  for (size_t i = 0; i < axes; ++i) {
    if (pad[i] < 0) throw Error(Concat(op.Describe(), ": negative padding"));
    window[i].pad_before = window[i].pad_after = pad[i];
  }
  return window;
}

Window2d ReadWindow1d(const LayerConfig& op, bool stride_defaults_to_kernel) {
  return PlaneWindow(WindowAxis{}, ReadWindowAxes(op, 1, stride_defaults_to_kernel)[0]);
}

Window2d ReadWindow2d(const LayerConfig& op, bool stride_defaults_to_kernel) {
  const std::vector<WindowAxis> axes = ReadWindowAxes(op, 2, stride_defaults_to_kernel);
  return PlaneWindow(axes[0], axes[1]);
}

Window3d ReadWindow3d(const LayerConfig& op, bool stride_defaults_to_kernel) {
  const std::vector<WindowAxis> axes = ReadWindowAxes(op, 3, stride_defaults_to_kernel);
  return Window3d{axes[0], PlaneWindow(axes[1], axes[2])};
}

}  // namespace lumen
