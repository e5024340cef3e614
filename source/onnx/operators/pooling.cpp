// ONNX MaxPool and AveragePool (1-D to 3-D) onto nn.MaxPool1d/2d/3d and nn.AvgPool1d/2d/3d, and
// GlobalAveragePool and GlobalMaxPool onto nn.AdaptiveAvgPool2d and nn.AdaptiveMaxPool2d.
#include <algorithm>
#include <cmath>

#include "lumen/error.hpp"
#include "onnx/onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

// MaxPool and AveragePool onto nn.MaxPool1d/2d/3d and nn.AvgPool1d/2d/3d. PyTorch's pools take
// symmetric pads of at most half the kernel; other pads (asymmetric ones, SAME's odd totals, pads
// beyond half a kernel, which ONNX allows; SAME with strides above 1, through lumen.CenterPad at
// plan time) are added before the pool, as -inf for a max and zeros for an average that counts
// them. An average that does not count them is the pool of the zero-padded input over the pool
// of a zero-padded tensor of ones: sum over valid count.
void GraphBuilder::MapPooling() {
  const bool max = node().op_type() == "MaxPool";
  const std::vector<int64_t> kernel = Ints("kernel_shape", {});
  const size_t spatial = kernel.size();
  if (spatial < 1 || spatial > 3) Fail("only 1-D, 2-D and 3-D pooling is supported");
  if (max && node().output_size() > 1 && !node().output(1).empty()) {
    Fail("the Indices output of MaxPool is not supported");
  }
  const std::vector<int64_t> strides = Ints("strides", std::vector<int64_t>(spatial, 1));
  const std::vector<int64_t> dilations = Ints("dilations", std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> pads = WindowPads(kernel, strides, dilations);
  if (!max) {
    for (int64_t dilation : dilations) {
      if (dilation != 1) Fail("dilations of AveragePool are not supported");
    }
  }
  bool count_pads = Int("count_include_pad", 0) != 0;
  const bool same_pads = pads.empty();  // SAME with a stride above 1: padded at plan time
  bool layer_pads = !same_pads;         // PyTorch's pool takes the pads itself
  if (same_pads) pads.assign(2 * spatial, 0);
  for (size_t i = 0; i < spatial && layer_pads; ++i) {
    layer_pads = layer_pads && pads[i] == pads[i + spatial] && 2 * pads[i] <= kernel[i];
  }
  const std::string type = Concat(max ? "nn.MaxPool" : "nn.AvgPool", spatial, "d");
  const auto pool = [&](const std::string& input, const std::string& output) {
    Node node = MakeNode(type, {input}, {output});
    node.params["kernel_size"] = Parameter::FromIntArray(ToInts(kernel));
    // ONNX's strides default to 1, PyTorch's to the kernel: always written out.
    node.params["stride"] = Parameter::FromIntArray(ToInts(strides));
    node.params["padding"] = Parameter::FromIntArray(
        ToInts(std::vector<int64_t>(pads.begin(), pads.begin() + static_cast<long>(spatial))));
    node.params["ceil_mode"] = Parameter::FromBool(Int("ceil_mode", 0) != 0);
    if (max) {
      node.params["dilation"] = Parameter::FromIntArray(ToInts(dilations));
      node.params["return_indices"] = Parameter::FromBool(false);
    } else {
      node.params["count_include_pad"] = Parameter::FromBool(count_pads);
    }
    Emit(std::move(node));
  };
  const std::string output = OutputName(0);
  if (layer_pads) {
    pool(RuntimeInput(0), output);
    SetRuntimeOutput(0, output);
    return;
  }
  const std::vector<int64_t> window_pads = pads;
  std::fill(pads.begin(), pads.end(), 0);
  const auto padded = [&](const std::string& input, float value) {
    return same_pads ? EmitSamePad(input, kernel, strides, dilations, value)
                     : EmitWindowPad(input, window_pads, value);
  };
  if (max || count_pads) {
    pool(padded(RuntimeInput(0), max ? -INFINITY : 0.0f), output);
  } else {
    count_pads = true;  // every window averages over its kernel: sums / counts is the mean
    const std::string sums = NewOperandName(output);
    pool(padded(RuntimeInput(0), 0.0f), sums);
    const std::string ones = NewOperandName(output);
    EmitExpressionOf("add(mul(eq(@0,@0),0),1)", {RuntimeInput(0)}, ones);  // 1 for NaN, inf too
    const std::string counts = NewOperandName(output);
    pool(padded(ones, 0.0f), counts);
    EmitExpressionOf("div(@0,@1)", {sums, counts}, output);
  }
  SetRuntimeOutput(0, output);
}

void GraphBuilder::MapGlobalPool() {
  const int rank = InputRank(0);
  if (rank >= 0 && rank != 4) Fail("only 2-D global pooling (an (N,C,H,W) input) is supported");
  const bool max = node().op_type() == "GlobalMaxPool";
  Node node = MakeNode(max ? "nn.AdaptiveMaxPool2d" : "nn.AdaptiveAvgPool2d", {RuntimeInput(0)},
                       {OutputName(0)});
  node.params["output_size"] = Parameter::FromIntArray({1, 1});
  EmitOutput(std::move(node));
}

// LRN onto nn.LocalResponseNorm: both divide by (bias + alpha / size * sum of squares)^beta over
// a window of `size` channels. For an odd size both windows are centred; for an even one ONNX's
// reaches one channel further up and PyTorch's one further down, so even sizes are refused.
void GraphBuilder::MapLocalResponseNorm() {
  const int64_t size = Int("size", 0);
  if (size < 1 || size % 2 == 0) {
    Fail(Concat("size ", size,
                " is not supported (only odd sizes, whose window PyTorch's LocalResponseNorm "
                "centres as ONNX does)"));
  }
  Node node = MakeNode("nn.LocalResponseNorm", {RuntimeInput(0)}, {OutputName(0)});
  node.params["size"] = Parameter::FromInt(ClampToInt(size));
  node.params["alpha"] = Parameter::FromFloat(Float("alpha", 1e-4f));
  node.params["beta"] = Parameter::FromFloat(Float("beta", 0.75f));
  node.params["k"] = Parameter::FromFloat(Float("bias", 1.0f));
  EmitOutput(std::move(node));
}

}  // namespace onnx
}  // namespace lumen
