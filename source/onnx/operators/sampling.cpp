// ONNX Resize, as PyTorch exports nn.Upsample and F.interpolate, onto nn.Upsample (lumen.Resize
// when the sizes are computed from shapes); Upsample (opsets 7 to 9) and Resize at opset 10, its
// successor of the same semantics, onto nn.Upsample's nearest mode; GridSample onto F.grid_sample.
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

void GraphBuilder::SetScaleFactors(const ConstantTensor& scales, Node* node) const {
  if (scales.size() != 4 || scales.At(0) != 1.0 || scales.At(1) != 1.0) {
    Fail(Concat("scales ", scales.Describe(), " are not supported (only (1,1,h,w))"));
  }
  node->params["scale_factor"] = Parameter::Parse(DoubleListText({scales.At(2), scales.At(3)}));
}

void GraphBuilder::MapUpsample() {
  // Upsample 7 reads its scales from an attribute, Upsample 9 and 10 and Resize 10 from input 1.
  const bool resize = node().op_type() == "Resize";
  ConstantTensor scales;
  if (!resize && NodeOpVersion() < 9) {
    const lumen_onnx_proto::AttributeProto* attribute = FindAttribute(node(), "scales");
    if (attribute == nullptr) Fail("the scales attribute is missing");
    scales = ConstantTensor::FromDoubles(
        kFloat, {attribute->floats_size()},
        std::vector<double>(attribute->floats().begin(), attribute->floats().end()));
  } else {
    scales = ConstantInput(1, "scales");
  }
  const std::string mode = String("mode", "nearest");
  if (mode == "linear" || mode == "bilinear") {
    // Upsample's and Resize 10's linear mode reads input position dst / scale ("asymmetric"),
    // which PyTorch's bilinear is not (torch.onnx.export warns that its opset 9 and 10 exports
    // differ from PyTorch), nor any of Lumen's resizing layers.
    Fail(Concat("mode '", mode,
                "' before opset 11 (source positions dst / scale, ONNX's asymmetric "
                "coordinates) is not supported (only nearest)"));
  }
  if (mode != "nearest") Fail(Concat("mode '", mode, "' is not supported (only nearest)"));
  for (size_t i = 0; i < scales.size(); ++i) {
    // Downsampling picks other pixels in ONNX Runtime (ceil) than in PyTorch (floor); Upsample
    // does not allow it, Resize 10 leaves it open.
    if (scales.At(i) < 1.0) {
      Fail(Concat("scales ", scales.Describe(), " below 1 are not supported before opset 11"));
    }
  }
  // Nearest, asymmetric, rounding down: input pixel floor(dst / scale), PyTorch's nearest.
  Node node = MakeNode("nn.Upsample", {RuntimeInput(0)}, {OutputName(0)});
  node.params["mode"] = Parameter::FromString("nearest");
  SetScaleFactors(scales, &node);
  EmitOutput(std::move(node));
}

void GraphBuilder::MapResize() {
  if (NodeOpVersion() < 11) {
    MapUpsample();
    return;
  }
  if (NodeOpVersion() >= 18) {
    if (Int("antialias", 0) != 0) Fail("antialias=1 is not supported");
    if (FindAttribute(node(), "axes")) Fail("the axes attribute (opset 18) is not supported");
    const std::string policy = String("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch") {
      Fail(Concat("keep_aspect_ratio_policy '", policy, "' is not supported (only stretch)"));
    }
  }
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
    EmitOutput(std::move(node));
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
    SetScaleFactors(ConstantInput(2, "scales"), &node);
  } else {
    Fail("neither scales nor sizes is given");
  }
  EmitOutput(std::move(node));
}

// GridSample (opset 16) onto F.grid_sample: the same modes (bilinear, nearest, bicubic), padding
// modes and align_corners (the layer refuses any other mode by name), with the grid a run-time
// value or a constant.
void GraphBuilder::MapGridSample() {
  const std::string mode = String("mode", "bilinear");
  Node node = MakeNode("F.grid_sample", RuntimeInputs(2), {OutputName(0)});
  node.params["mode"] = Parameter::FromString(mode);
  node.params["padding_mode"] = Parameter::FromString(String("padding_mode", "zeros"));
  node.params["align_corners"] = Parameter::FromBool(Int("align_corners", 0) != 0);
  EmitOutput(std::move(node));
}

}  // namespace onnx
}  // namespace lumen
