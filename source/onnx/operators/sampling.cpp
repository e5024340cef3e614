// ONNX Resize, as PyTorch exports nn.Upsample and F.interpolate, onto nn.Upsample (lumen.Resize
// when the sizes are computed from shapes); GridSample onto F.grid_sample.
#include <cstdio>

#include "lumen/error.hpp"
#include "onnx/onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

namespace {

// "(2,2)"-style text of doubles with every digit, for parameters read as doubles (Upsample).
std::string DoubleListText(const std::vector<double>& values) {
  std::string text = "(";
  for (size_t i = 0; i < values.size(); ++i) {
    char number[40];
    std::snprintf(number, sizeof(number), "%.17g", values[i]);
    text += Concat(i ? "," : "", number);
  }
  return text + ")";
}

}  // namespace

void GraphBuilder::MapResize() {
  const std::string mode = String("mode", "nearest");
  const std::string transform = String("coordinate_transformation_mode", "half_pixel");
  Node node = MakeNode("nn.Upsample", {RuntimeInput(0)}, {OutputName(0)});
  if (mode == "nearest") {
    // PyTorch's nearest: source index floor(dst * in / out).
    const std::string rounding = String("nearest_mode", "round_prefer_floor");
    if (transform != "asymmetric" || rounding != "floor") {
      Fail(Concat("nearest resizing with coordinate_transformation_mode '", transform,
                  "' and nearest_mode '", rounding,
                  "' is not supported (only PyTorch's: asymmetric, floor)"));
    }
    node.params["mode"] = Parameter::FromString("nearest");
  } else if (mode == "linear") {
    if (transform == "align_corners") {
      node.params["align_corners"] = Parameter::FromBool(true);
    } else if (transform == "pytorch_half_pixel" || transform == "half_pixel") {
      node.params["align_corners"] = Parameter::FromBool(false);
    } else {
      Fail(Concat("linear resizing with coordinate_transformation_mode '", transform,
                  "' is not supported"));
    }
    node.params["mode"] = Parameter::FromString("bilinear");
  } else {
    Fail(Concat("mode '", mode, "' is not supported (only nearest and linear)"));
  }
  // Inputs: X, roi, scales, sizes (roi and one of scales / sizes may be omitted).
  if (HasInput(3) && !IsConstantInput(3)) {
    // Sizes computed from shapes (F.interpolate(size=x.shape[-2:])): lumen.Resize reads them
    // when a session plans.
    node.type = "lumen.Resize";
    node.input_names.push_back(RuntimeInput(3));
    Emit(std::move(node));
    SetRuntimeOutput(0, OutputName(0));
    return;
  }
  if (HasInput(2) && !IsConstantInput(2)) Fail("scales computed at run time are not supported");
  const bool has_sizes = HasInput(3) && ConstantInput(3, "sizes").size() > 0;
  const bool has_scales = HasInput(2) && ConstantInput(2, "scales").size() > 0;
  if (has_sizes) {
    const std::vector<int64_t> sizes = ConstantInput(3, "sizes").Integers();
    if (sizes.size() != 4) Fail("only 2-D resizing of (N,C,H,W) is supported");
    node.params["size"] = Parameter::FromIntArray({ClampToInt(sizes[2]), ClampToInt(sizes[3])});
  } else if (has_scales) {
    const ConstantTensor& scales = ConstantInput(2, "scales");
    if (scales.size() != 4 || scales.At(0) != 1.0 || scales.At(1) != 1.0) {
      Fail(Concat("scales ", scales.Describe(), " are not supported (only (1,1,h,w))"));
    }
    node.params["scale_factor"] = Parameter::Parse(DoubleListText({scales.At(2), scales.At(3)}));
  } else {
    Fail("neither scales nor sizes is given");
  }
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

// GridSample (opset 16) onto F.grid_sample: the same modes (bilinear, nearest, bicubic), padding
// modes and align_corners (the layer refuses any other mode by name), with the grid a run-time
// value or a constant.
void GraphBuilder::MapGridSample() {
  const std::string mode = String("mode", "bilinear");
  Node node = MakeNode("F.grid_sample", {RuntimeInput(0), RuntimeInput(1)}, {OutputName(0)});
  node.params["mode"] = Parameter::FromString(mode);
  node.params["padding_mode"] = Parameter::FromString(String("padding_mode", "zeros"));
  node.params["align_corners"] = Parameter::FromBool(Int("align_corners", 0) != 0);
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

}  // namespace onnx
}  // namespace lumen
