// ONNX MaxPool and AveragePool (1-D, 2-D) onto nn.MaxPool1d/2d and nn.AvgPool1d/2d, and
// GlobalAveragePool onto nn.AdaptiveAvgPool2d.
#include "lumen/error.hpp"
#include "onnx/onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

void GraphBuilder::MapPooling() {
  const bool max = node().op_type() == "MaxPool";
  const std::vector<int64_t> kernel = Ints("kernel_shape", {});
  const size_t spatial = kernel.size();
  if (spatial != 1 && spatial != 2) Fail("only 1-D and 2-D pooling is supported");
  if (max && node().output_size() > 1 && !node().output(1).empty()) {
    Fail("the Indices output of MaxPool is not supported");
  }
  const std::string auto_pad = String("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID") {
    Fail(Concat("auto_pad ", auto_pad, " is not supported (only explicit pads)"));
  }
  std::vector<int64_t> pads = Ints("pads", std::vector<int64_t>(2 * spatial, 0));
  if (auto_pad == "VALID") pads.assign(2 * spatial, 0);
  if (pads.size() != 2 * spatial) Fail(Concat("pads must have ", 2 * spatial, " values"));
  for (size_t i = 0; i < spatial; ++i) {
    if (pads[i] != pads[i + spatial]) {
      Fail(Concat("pads ", DimsToString(pads), " are not supported (only symmetric)"));
    }
  }
  const std::vector<int64_t> strides = Ints("strides", std::vector<int64_t>(spatial, 1));
  const std::vector<int64_t> dilations = Ints("dilations", std::vector<int64_t>(spatial, 1));
  if (strides.size() != spatial || dilations.size() != spatial) {
    Fail(Concat("strides and dilations must have ", spatial, " values"));
  }
  const char* type = spatial == 1 ? (max ? "nn.MaxPool1d" : "nn.AvgPool1d")
                                  : (max ? "nn.MaxPool2d" : "nn.AvgPool2d");
  Node node = MakeNode(type, {RuntimeInput(0)}, {OutputName(0)});
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
    for (int64_t dilation : dilations) {
      if (dilation != 1) Fail("dilations of AveragePool are not supported");
    }
    node.params["count_include_pad"] = Parameter::FromBool(Int("count_include_pad", 0) != 0);
  }
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

void GraphBuilder::MapGlobalAveragePool() {
  const int rank = InputRank(0);
  if (rank >= 0 && rank != 4) Fail("only 2-D global pooling (an (N,C,H,W) input) is supported");
  Node node = MakeNode("nn.AdaptiveAvgPool2d", {RuntimeInput(0)}, {OutputName(0)});
  node.params["output_size"] = Parameter::FromIntArray({1, 1});
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
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
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
}

}  // namespace onnx
}  // namespace lumen
