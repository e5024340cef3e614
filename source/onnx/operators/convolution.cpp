// ONNX Conv (1-D and 2-D) onto nn.Conv2d (a 1-D convolution between an unsqueeze and a squeeze)
// and ConvTranspose (2-D) onto nn.ConvTranspose2d; with weights given as graph inputs, onto
// F.conv1d/2d/3d and F.conv_transpose1d/2d/3d; the pads of every sliding window (auto_pad,
// asymmetric pads) for these and the pools.
#include <algorithm>
#include <climits>

#include "lumen/error.hpp"
#include "onnx/onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

// A weight known when loading makes nn.Conv2d (packed once, with the fast algorithms); one given
// as an operand (a graph input, a computed value) makes F.conv1d/2d/3d, which read it at every
// run and need only its dims, from the file's declarations.
void GraphBuilder::MapConvolution() {
  const bool known = IsConstantInput(1);
  const std::vector<int64_t> weight_dims =
      known ? constants_.at(node().input(1)).dims : KnownInputDims(1, "weight");
  const size_t spatial = weight_dims.size() < 2 ? 0 : weight_dims.size() - 2;
  if (spatial < 1 || spatial > (known ? 2 : 3)) {
    Fail(
        Concat("only 1-D and 2-D convolutions (and 3-D ones of an operand weight) are "
               "supported, the weight is ",
               DimsToString(weight_dims)));
  }
  const auto pairs = [&](const std::string& name, int64_t fallback) {
    std::vector<int64_t> values = Ints(name, std::vector<int64_t>(spatial, fallback));
    if (values.size() != spatial) Fail(Concat(name, " must have ", spatial, " values"));
    if (spatial == 1) values.insert(values.begin(), fallback == 0 ? 0 : 1);
    return ToInts(values);
  };
  std::vector<int64_t> kernel(weight_dims.begin() + 2, weight_dims.end());
  if (Ints("kernel_shape", kernel) != kernel) Fail("kernel_shape disagrees with the weight");
  const std::vector<int64_t> strides = Ints("strides", std::vector<int64_t>(spatial, 1));
  const std::vector<int64_t> dilations = Ints("dilations", std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> pads = WindowPads(kernel, strides, dilations);
  std::string input = RuntimeInput(0);
  if (pads.empty()) {  // SAME with a stride above 1
    input = EmitSamePad(input, kernel, strides, dilations, 0.0f);
    pads.assign(2 * spatial, 0);
  } else if (!std::equal(pads.begin(), pads.begin() + static_cast<long>(spatial),
                         pads.begin() + static_cast<long>(spatial))) {
    // Asymmetric pads (SAME's odd totals among them): zeros added before the convolution.
    input = EmitWindowPad(input, pads, 0.0f);
    std::fill(pads.begin(), pads.end(), 0);
  }
  const int64_t groups = Int("group", 1);
  if (!known) {
    std::vector<std::string> inputs = {input, RuntimeInput(1)};
    if (HasInput(2)) inputs.push_back(RuntimeInput(2));
    Node node = MakeNode(Concat("F.conv", spatial, "d"), inputs, {OutputName(0)});
    node.params["stride"] = Parameter::FromIntArray(ToInts(strides));
    node.params["padding"] = Parameter::FromIntArray(
        ToInts(std::vector<int64_t>(pads.begin(), pads.begin() + static_cast<long>(spatial))));
    node.params["dilation"] = Parameter::FromIntArray(ToInts(dilations));
    node.params["groups"] = Parameter::FromInt(ClampToInt(groups));
    EmitOutput(std::move(node));
    return;
  }
  const ConstantTensor& weight = ConstantInput(1, "weight");
  if (spatial == 1) kernel.insert(kernel.begin(), 1);
  std::vector<int64_t> padding(pads.begin(), pads.begin() + static_cast<long>(spatial));
  if (spatial == 1) padding.insert(padding.begin(), 0);
  ConstantTensor weight_2d = weight;
  weight_2d.dims = {weight.dims[0], weight.dims[1], kernel[0], kernel[1]};

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

// ConvTranspose onto nn.ConvTranspose2d (a known 2-D weight) or F.conv_transpose1d/2d/3d (a
// weight given as an operand, whose dims the file declares). SAME_UPPER / SAME_LOWER make the
// output the input times the stride: their total pad, output_padding + (kernel - 1) * dilation +
// 1 - stride, does not depend on the input. Asymmetric pads run the layer with the smaller pad of
// each axis and crop the rest (a slice). output_shape's pads depend on the input's extent:
// lumen.CenterPad cuts the full output to it at plan time.
void GraphBuilder::MapTransposedConvolution() {
  const bool known = IsConstantInput(1);
  const std::vector<int64_t> weight_dims =
      known ? constants_.at(node().input(1)).dims : KnownInputDims(1, "weight");
  const size_t spatial = weight_dims.size() < 2 ? 0 : weight_dims.size() - 2;
  if (known ? spatial != 2 : (spatial < 1 || spatial > 3)) {
    Fail(
        Concat("only 2-D transposed convolutions (and 1-D to 3-D ones of an operand weight) are "
               "supported, the weight is ",
               DimsToString(weight_dims)));
  }
  const std::vector<int64_t> zeros(spatial, 0);
  const std::vector<int64_t> ones(spatial, 1);
  const int64_t groups = Int("group", 1);
  const std::vector<int64_t> kernel(weight_dims.begin() + 2, weight_dims.end());
  if (Ints("kernel_shape", kernel) != kernel) Fail("kernel_shape disagrees with the weight");
  const std::vector<int64_t> strides = Ints("strides", ones);
  const std::vector<int64_t> dilations = Ints("dilations", ones);
  const std::vector<int64_t> output_padding = Ints("output_padding", zeros);
  if (strides.size() != spatial || dilations.size() != spatial ||
      output_padding.size() != spatial) {
    Fail(Concat("strides, dilations and output_padding must have ", spatial, " values"));
  }
  const std::string auto_pad = String("auto_pad", "NOTSET");
  std::vector<int64_t> pads = Ints("pads", std::vector<int64_t>(2 * spatial, 0));
  if (auto_pad == "VALID") {
    pads.assign(2 * spatial, 0);
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    pads.assign(2 * spatial, 0);
    for (size_t i = 0; i < spatial; ++i) {
      const int64_t total = output_padding[i] + (kernel[i] - 1) * dilations[i] + 1 - strides[i];
      if (total < 0) Fail(Concat("auto_pad ", auto_pad, " needs a negative pad on axis ", i));
      const int64_t small = total / 2;
      pads[i] = auto_pad == "SAME_UPPER" ? small : total - small;
      pads[i + spatial] = total - pads[i];
    }
  } else if (auto_pad != "NOTSET") {
    Fail(Concat("unknown auto_pad '", auto_pad, "'"));
  }
  // output_shape: the full output (no pads) cut to it, the odd element as auto_pad says; pads
  // are then ignored, as ONNX says.
  std::vector<int64_t> output_shape = Ints("output_shape", {});
  if (output_shape.size() == spatial + 2) {
    output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
  }
  if (!output_shape.empty()) {
    if (output_shape.size() != spatial) {
      Fail(Concat("output_shape ", DimsToString(output_shape), " must have ", spatial, " values"));
    }
    pads.assign(2 * spatial, 0);
  }
  if (pads.size() != 2 * spatial) {
    Fail(Concat("pads ", DimsToString(pads), " must have ", 2 * spatial, " values"));
  }
  std::vector<int64_t> padding(spatial);
  bool crop = !output_shape.empty();
  for (size_t i = 0; i < spatial; ++i) {
    padding[i] = std::min(pads[i], pads[i + spatial]);
    crop = crop || pads[i] != pads[i + spatial];
  }
  const std::string output = OutputName(0);
  const std::string result = crop ? NewOperandName(output) : output;
  Node node;
  if (known) {
    const ConstantTensor& weight = ConstantInput(1, "weight");
    node = MakeNode("nn.ConvTranspose2d", {RuntimeInput(0)}, {result});
    node.params["in_channels"] = Parameter::FromInt(ClampToInt(weight.dims[0]));
    node.params["out_channels"] = Parameter::FromInt(ClampToInt(weight.dims[1] * groups));
    node.params["kernel_size"] = Parameter::FromIntArray(ToInts(kernel));
    node.params["bias"] = Parameter::FromBool(HasInput(2));
    node.attributes["weight"] = ToAttribute(weight, Where());
    if (HasInput(2)) node.attributes["bias"] = ToAttribute(ConstantInput(2, "bias"), Where());
  } else {
    std::vector<std::string> inputs = {RuntimeInput(0), RuntimeInput(1)};
    if (HasInput(2)) inputs.push_back(RuntimeInput(2));
    node = MakeNode(Concat("F.conv_transpose", spatial, "d"), inputs, {result});
  }
  node.params["stride"] = Parameter::FromIntArray(ToInts(strides));
  node.params["padding"] = Parameter::FromIntArray(ToInts(padding));
  node.params["output_padding"] = Parameter::FromIntArray(ToInts(output_padding));
  node.params["dilation"] = Parameter::FromIntArray(ToInts(dilations));
  node.params["groups"] = Parameter::FromInt(ClampToInt(groups));
  Emit(std::move(node));
  if (!output_shape.empty()) {
    Node cut = MakeNode("lumen.CenterPad", {result}, {output});
    cut.params["size"] = Parameter::FromIntArray(ToInts(output_shape));
    cut.params["upper"] = Parameter::FromBool(auto_pad == "SAME_UPPER");
    // An output_shape past the full output adds rows and columns at the end, as output_padding
    // does (ONNX Runtime's rule: the pads are never negative).
    cut.params["grow_at_end"] = Parameter::FromBool(true);
    Emit(std::move(cut));
  } else if (crop) {
    // What is left of each axis's larger pad, cut from its side.
    Node slice = MakeNode("Tensor.slice", {result}, {output});
    std::vector<int> dims, starts, ends;
    for (size_t i = 0; i < spatial; ++i) {
      dims.push_back(static_cast<int>(i) - static_cast<int>(spatial));
      starts.push_back(ClampToInt(pads[i] - padding[i]));
      const int64_t end_crop = pads[i + spatial] - padding[i];
      ends.push_back(end_crop == 0 ? INT_MAX : ClampToInt(-end_crop));
    }
    slice.params["dims"] = Parameter::FromIntArray(dims);
    slice.params["starts"] = Parameter::FromIntArray(starts);
    slice.params["ends"] = Parameter::FromIntArray(ends);
    slice.params["steps"] = Parameter::FromIntArray(std::vector<int>(spatial, 1));
    Emit(std::move(slice));
  }
  SetRuntimeOutput(0, output);
}

std::vector<int64_t> GraphBuilder::KnownInputDims(size_t index, const std::string& role) const {
  const std::vector<int64_t> dims = InputDims(index);
  if (dims.empty() || std::any_of(dims.begin(), dims.end(), [](int64_t d) { return d < 0; })) {
    Fail(Concat("the ", role, " (input ", index,
                ") must be known when loading, or a graph input "
                "whose dims the file declares: its shape sets the layer's geometry"));
  }
  return dims;
}

std::vector<int64_t> GraphBuilder::WindowPads(const std::vector<int64_t>& kernel,
                                              const std::vector<int64_t>& strides,
                                              const std::vector<int64_t>& dilations) const {
  const size_t spatial = kernel.size();
  if (strides.size() != spatial || dilations.size() != spatial) {
    Fail(Concat("strides and dilations must have ", spatial, " values"));
  }
  const std::string auto_pad = String("auto_pad", "NOTSET");
  std::vector<int64_t> pads(2 * spatial, 0);
  if (auto_pad == "NOTSET") {
    pads = Ints("pads", pads);
    if (pads.size() != 2 * spatial) Fail(Concat("pads must have ", 2 * spatial, " values"));
    for (int64_t pad : pads) {
      if (pad < 0) Fail(Concat("pads ", DimsToString(pads), " must not be negative"));
    }
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    // The output is ceil(input / stride) long; with stride 1 the total pad is the window's extent
    // less one whatever the input, the odd one going at the end (UPPER) or the beginning (LOWER).
    for (size_t i = 0; i < spatial; ++i) {
      if (strides[i] != 1) return {};
      const int64_t total = (kernel[i] - 1) * dilations[i];
      const int64_t small = total / 2;
      pads[i] = auto_pad == "SAME_UPPER" ? small : total - small;
      pads[i + spatial] = total - pads[i];
    }
  } else if (auto_pad != "VALID") {
    Fail(Concat("unknown auto_pad '", auto_pad, "'"));
  }
  return pads;
}

std::string GraphBuilder::EmitSamePad(const std::string& input, const std::vector<int64_t>& kernel,
                                      const std::vector<int64_t>& strides,
                                      const std::vector<int64_t>& dilations, float value) {
  const std::string padded = NewOperandName(Concat(OutputName(0), ":padded"));
  Node node = MakeNode("lumen.CenterPad", {input}, {padded});
  node.params["kernel_size"] = Parameter::FromIntArray(ToInts(kernel));
  node.params["stride"] = Parameter::FromIntArray(ToInts(strides));
  node.params["dilation"] = Parameter::FromIntArray(ToInts(dilations));
  node.params["upper"] = Parameter::FromBool(String("auto_pad", "NOTSET") == "SAME_UPPER");
  node.params["value"] = Parameter::FromFloat(value);
  Emit(std::move(node));
  return padded;
}

std::string GraphBuilder::EmitWindowPad(const std::string& input, const std::vector<int64_t>& pads,
                                        float value) {
  // F.pad's list holds (before, after) pairs from the last axis backwards.
  const size_t spatial = pads.size() / 2;
  std::vector<int> torch_pads;
  for (size_t i = 0; i < spatial; ++i) {
    torch_pads.push_back(ClampToInt(pads[spatial - 1 - i]));
    torch_pads.push_back(ClampToInt(pads[2 * spatial - 1 - i]));
  }
  const std::string padded = NewOperandName(Concat(OutputName(0), ":padded"));
  Node node = MakeNode("F.pad", {input}, {padded});
  node.params["pad"] = Parameter::FromIntArray(torch_pads);
  node.params["mode"] = Parameter::FromString("constant");
  node.params["value"] = Parameter::FromFloat(value);
  Emit(std::move(node));
  return padded;
}

}  // namespace onnx
}  // namespace lumen
