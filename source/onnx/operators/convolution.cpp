// ONNX Conv (1-D and 2-D) onto nn.Conv2d (a 1-D convolution between an unsqueeze and a squeeze)
// and ConvTranspose (2-D) onto nn.ConvTranspose2d.
#include <algorithm>

#include "lumen/error.hpp"
#include "onnx/onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

void GraphBuilder::MapConvolution() {
  const ConstantTensor& weight = ConstantInput(1, "weight");
  const size_t spatial = weight.dims.size() < 2 ? 0 : weight.dims.size() - 2;
  if (spatial != 1 && spatial != 2) {
    Fail(Concat("only 1-D and 2-D convolutions are supported, the weight is ", weight.Describe()));
  }
  const auto pairs = [&](const std::string& name, int64_t fallback) {
    std::vector<int64_t> values = Ints(name, std::vector<int64_t>(spatial, fallback));
    if (values.size() != spatial) Fail(Concat(name, " must have ", spatial, " values"));
    if (spatial == 1) values.insert(values.begin(), fallback == 0 ? 0 : 1);
    return ToInts(values);
  };
  std::vector<int64_t> kernel(weight.dims.begin() + 2, weight.dims.end());
  if (Ints("kernel_shape", kernel) != kernel) Fail("kernel_shape disagrees with the weight");
  if (spatial == 1) kernel.insert(kernel.begin(), 1);
  const std::string auto_pad = String("auto_pad", "NOTSET");
  std::vector<int64_t> pads = Ints("pads", std::vector<int64_t>(2 * spatial, 0));
  if (pads.size() != 2 * spatial) Fail(Concat("pads must have ", 2 * spatial, " values"));
  for (size_t i = 0; i < spatial; ++i) {
    if (pads[i] != pads[i + spatial]) {
      Fail(Concat("asymmetric pads ", DimsToString(pads), " are not supported"));
    }
  }
  if (auto_pad != "NOTSET" && auto_pad != "VALID") {
    Fail(Concat("auto_pad ", auto_pad, " is not supported (only explicit pads)"));
  }
  if (auto_pad == "VALID") std::fill(pads.begin(), pads.end(), 0);
  std::vector<int64_t> padding(pads.begin(), pads.begin() + static_cast<long>(spatial));
  if (spatial == 1) padding.insert(padding.begin(), 0);
  const int64_t groups = Int("group", 1);
  ConstantTensor weight_2d = weight;
  weight_2d.dims = {weight.dims[0], weight.dims[1], kernel[0], kernel[1]};

  std::string input = RuntimeInput(0);
  const std::string output = OutputName(0);
  std::string convolution_output = output;
  if (spatial == 1) {  // (N,C,L) -> (N,C,1,L), the 2-D convolution, and back
    const std::string unsqueezed = NewOperandName(output);
    Node unsqueeze = MakeNode("torch.unsqueeze", {input}, {unsqueezed});
    unsqueeze.params["dim"] = Parameter::FromInt(-2);
    Emit(std::move(unsqueeze));
    input = unsqueezed;
    convolution_output = NewOperandName(output);
  }
  Node node = MakeNode("nn.Conv2d", {input}, {convolution_output});
  node.params["in_channels"] = Parameter::FromInt(ClampToInt(weight.dims[1] * groups));
  node.params["out_channels"] = Parameter::FromInt(ClampToInt(weight.dims[0]));
  node.params["kernel_size"] = Parameter::FromIntArray(ToInts(kernel));
  node.params["stride"] = Parameter::FromIntArray(pairs("strides", 1));
  node.params["padding"] = Parameter::FromIntArray(ToInts(padding));
  node.params["dilation"] = Parameter::FromIntArray(pairs("dilations", 1));
  node.params["groups"] = Parameter::FromInt(ClampToInt(groups));
  node.params["bias"] = Parameter::FromBool(HasInput(2));
  node.attributes["weight"] = ToAttribute(weight_2d, Where());
  if (HasInput(2)) node.attributes["bias"] = ToAttribute(ConstantInput(2, "bias"), Where());
  Emit(std::move(node));
  if (spatial == 1) {
    Node squeeze = MakeNode("torch.squeeze", {convolution_output}, {output});
    squeeze.params["dim"] = Parameter::FromInt(-2);
    Emit(std::move(squeeze));
  }
  SetRuntimeOutput(0, output);
}

void GraphBuilder::MapTransposedConvolution() {
  const ConstantTensor& weight = ConstantInput(1, "weight");
  if (weight.dims.size() != 4) {
    Fail(Concat("only 2-D transposed convolutions are supported, the weight is ",
                weight.Describe()));
  }
  if (FindAttribute(node(), "output_shape") != nullptr) {
    Fail("output_shape is not supported (give pads and output_padding)");
  }
  const std::string auto_pad = String("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID") {
    Fail(Concat("auto_pad ", auto_pad, " is not supported (only explicit pads)"));
  }
  std::vector<int64_t> pads = Ints("pads", {0, 0, 0, 0});
  if (auto_pad == "VALID") pads = {0, 0, 0, 0};
  if (pads.size() != 4 || pads[0] != pads[2] || pads[1] != pads[3]) {
    Fail(Concat("pads ", DimsToString(pads), " are not supported (only symmetric 2-D pads)"));
  }
  const int64_t groups = Int("group", 1);
  const std::vector<int64_t> kernel(weight.dims.begin() + 2, weight.dims.end());
  if (Ints("kernel_shape", kernel) != kernel) Fail("kernel_shape disagrees with the weight");
  Node node = MakeNode("nn.ConvTranspose2d", {RuntimeInput(0)}, {OutputName(0)});
  node.params["in_channels"] = Parameter::FromInt(ClampToInt(weight.dims[0]));
  node.params["out_channels"] = Parameter::FromInt(ClampToInt(weight.dims[1] * groups));
  node.params["kernel_size"] = Parameter::FromIntArray(ToInts(kernel));
  node.params["stride"] = Parameter::FromIntArray(ToInts(Ints("strides", {1, 1})));
  node.params["padding"] = Parameter::FromIntArray({ClampToInt(pads[0]), ClampToInt(pads[1])});
  node.params["output_padding"] = Parameter::FromIntArray(ToInts(Ints("output_padding", {0, 0})));
  node.params["dilation"] = Parameter::FromIntArray(ToInts(Ints("dilations", {1, 1})));
  node.params["groups"] = Parameter::FromInt(ClampToInt(groups));
  node.params["bias"] = Parameter::FromBool(HasInput(2));
  node.attributes["weight"] = ToAttribute(weight, Where());
  if (HasInput(2)) node.attributes["bias"] = ToAttribute(ConstantInput(2, "bias"), Where());
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

}  // namespace onnx
}  // namespace lumen
