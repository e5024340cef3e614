// ONNX ops that keep or reorder elements along an axis: Compress with a condition known when
// loading onto torch.index_select of the positions the condition keeps (on the input flattened,
// without an axis; the output's extent is the count of those positions, so a condition computed
// at run time, which would make the shape depend on values, is refused); ReverseSequence onto
// lumen.ReverseSequence.
#include "lumen/error.hpp"
#include "onnx/onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

void GraphBuilder::MapCompress() {
  const ConstantTensor& condition = ConstantInput(1, "condition");
  if (condition.dims.size() != 1) {
    Fail(Concat("the condition must be a vector, got ", condition.Describe()));
  }
  std::vector<double> kept;
  for (size_t position = 0; position < condition.size(); ++position) {
    if (condition.At(position) != 0.0) kept.push_back(static_cast<double>(position));
  }
  std::string input = RuntimeInput(0);
  const bool has_axis = FindAttribute(node(), "axis") != nullptr;
  if (!has_axis) {
    const std::string flat = NewOperandName(Concat(OutputName(0), ":flat"));
    Emit(MakeNode("torch.flatten", {input}, {flat}));
    input = flat;
  }
  const std::string positions = NewOperandName(Concat(OutputName(0), ":positions"));
  Node positions_node = MakeNode("pnnx.Attribute", {}, {positions});
  positions_node.attributes["data"] = ToAttribute(
      ConstantTensor::FromDoubles(kFloat, {static_cast<int64_t>(kept.size())}, kept), Where());
  Emit(std::move(positions_node));
  // index_select checks every position against the extent at run time: a condition longer than
  // the axis, true past its end, is an error naming the node.
  Node select = MakeNode("torch.index_select", {input, positions}, {OutputName(0)});
  select.params["dim"] = Parameter::FromInt(has_axis ? ClampToInt(Int("axis", 0)) : 0);
  EmitOutput(std::move(select));
}

// ReverseSequence: the first sequence_lens[b] steps along time_axis of each batch entry b
// reversed, the rest copied.
void GraphBuilder::MapReverseSequence() {
  const int64_t batch_axis = Int("batch_axis", 1);
  const int64_t time_axis = Int("time_axis", 0);
  if (!((batch_axis == 0 && time_axis == 1) || (batch_axis == 1 && time_axis == 0))) {
    Fail(Concat("batch_axis ", batch_axis, " and time_axis ", time_axis,
                " must be 0 and 1 or 1 and 0"));
  }
  Node node =
      MakeNode("lumen.ReverseSequence", {RuntimeInput(0), RuntimeInput(1)}, {OutputName(0)});
  node.params["batch_dim"] = Parameter::FromInt(ClampToInt(batch_axis));
  node.params["time_dim"] = Parameter::FromInt(ClampToInt(time_axis));
  EmitOutput(std::move(node));
}

}  // namespace onnx
}  // namespace lumen
