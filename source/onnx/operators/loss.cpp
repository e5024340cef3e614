// ONNX NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss onto F.nll_loss and F.cross_entropy,
// which compute the same: the same reductions, the optional weight per class, ignore_index, and
// (SoftmaxCrossEntropyLoss) the optional log_prob output. Integer targets arrive as floats.
#include <climits>

#include "lumen/error.hpp"
#include "onnx/onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

void GraphBuilder::MapLoss() {
  const bool cross_entropy = node().op_type() == "SoftmaxCrossEntropyLoss";
  std::vector<std::string> inputs = {RuntimeInput(0), RuntimeInput(1)};
  if (HasInput(2)) inputs.push_back(RuntimeInput(2));
  std::vector<std::string> outputs = {OutputName(0)};
  const bool log_prob = cross_entropy && node().output_size() > 1 && !node().output(1).empty();
  if (log_prob) outputs.push_back(OutputName(1));
  Node loss = MakeNode(cross_entropy ? "F.cross_entropy" : "F.nll_loss", inputs, outputs);
  loss.params["reduction"] = Parameter::FromString(String("reduction", "mean"));
  // Without ignore_index every target must be a class; INT_MIN, never one, stands for "none"
  // (PyTorch's default, -100, would ignore a target ONNX calls out of range).
  loss.params["ignore_index"] = Parameter::FromInt(FindAttribute(node(), "ignore_index") != nullptr
                                                       ? ClampToInt(Int("ignore_index", 0))
                                                       : INT_MIN);
  EmitOutput(std::move(loss));
  if (log_prob) SetRuntimeOutput(1, OutputName(1));
}

}  // namespace onnx
}  // namespace lumen
