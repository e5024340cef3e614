// ONNX Gather of a run-time value at known indices onto Tensor.select (one index) or
// torch.index_select (a list); GatherElements, ScatterElements, GatherND and ScatterND onto
// torch.gather, torch.scatter / torch.scatter_reduce, lumen.GatherND and lumen.ScatterND; Where
// onto torch.where.
#include <algorithm>

#include "lumen/error.hpp"
#include "onnx/onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

void GraphBuilder::MapGather() {
  // Known indices from a run-time value. One index is Tensor.select (it drops the axis), a list
  // is torch.index_select; both check the range against the extent the data has at run time, so
  // an index past the end is an error naming the node, never an empty result.
  // Indices of rank above 1 are selected flattened, and their dimensions split out again.
  const ConstantTensor& indices = ConstantInput(1, "indices");
  const bool nested = indices.dims.size() > 1;
  const int64_t axis = Int("axis", 0);
  std::vector<int64_t> picked = indices.Integers();
  if (indices.dims.empty()) {
    Node select = MakeNode("Tensor.select", {RuntimeInput(0)}, {OutputName(0)});
    select.params["dim"] = Parameter::FromInt(ClampToInt(axis));
    select.params["index"] = Parameter::FromInt(ClampToInt(picked.at(0)));
    EmitOutput(std::move(select));
    return;
  }
  // Made first so that it carries the ONNX node's own name into messages.
  Node gather = MakeNode("torch.index_select", {}, {OutputName(0)});
  gather.params["dim"] = Parameter::FromInt(ClampToInt(axis));
  // ONNX counts negative indices from the end; torch.index_select does not, so they get the
  // extent added: index + (index < 0) * extent, the extent taken from the input's shape. A session
  // computes that when it plans.
  std::string index_operand = RuntimeInput(1);
  if (nested) {
    const std::string flat = NewOperandName(Concat(OutputName(0), ":flat"));
    Emit(MakeNode("torch.flatten", {index_operand}, {flat}));
    index_operand = flat;
  }
  if (std::any_of(picked.begin(), picked.end(), [](int64_t index) { return index < 0; })) {
    const std::string shape = NewOperandName(Concat(OutputName(0), ":shape"));
    Emit(MakeNode("lumen.Shape", {RuntimeInput(0)}, {shape}));
    const std::string extent = NewOperandName(Concat(OutputName(0), ":extent"));
    Node select = MakeNode("Tensor.select", {shape}, {extent});
    select.params["dim"] = Parameter::FromInt(0);
    select.params["index"] = Parameter::FromInt(ClampToInt(axis));
    Emit(std::move(select));
    const std::string from_start = NewOperandName(Concat(OutputName(0), ":indices"));
    EmitExpressionOf("add(@0,mul(lt(@0,0),@1))", {index_operand, extent}, from_start);
    index_operand = from_start;
  }
  gather.input_names = {RuntimeInput(0), index_operand};
  if (nested) gather.output_names = {NewOperandName(Concat(OutputName(0), ":selected"))};
  const std::string selected = gather.output_names[0];
  Emit(std::move(gather));
  if (nested) {
    Node split = MakeNode("torch.unflatten", {selected}, {OutputName(0)});
    split.params["dim"] = Parameter::FromInt(ClampToInt(axis));
    split.params["sizes"] = Parameter::FromIntArray(ToInts(indices.dims));
    Emit(std::move(split));
  }
  SetRuntimeOutput(0, OutputName(0));
}

// GatherElements onto torch.gather along axis: the same rule, output[i][j] = data[index[i][j]][j]
// (axis 0). The indices are run-time values or constants; a negative one (ONNX counts it from the
// end, PyTorch refuses it) is an error at run time naming the node.
void GraphBuilder::MapGatherElements() {
  Node node = MakeNode("torch.gather", RuntimeInputs(2), {OutputName(0)});
  node.params["dim"] = Parameter::FromInt(ClampToInt(Int("axis", 0)));
  EmitOutput(std::move(node));
}

std::string GraphBuilder::ScatterReduceName() const {
  static const std::map<std::string, std::string> reductions = {
      {"none", ""}, {"add", "sum"}, {"mul", "prod"}, {"max", "amax"}, {"min", "amin"}};
  const std::string reduction = String("reduction", "none");
  const auto found = reductions.find(reduction);
  if (found == reductions.end()) {
    Fail(Concat("reduction '", reduction, "' is not one of none, add, mul, max, min"));
  }
  return found->second;
}

// ScatterElements onto torch.scatter (reduction none) or torch.scatter_reduce with the data's own
// values included (ONNX's add, mul, max, min combine with them).
void GraphBuilder::MapScatterElements() {
  const std::string reduce = ScatterReduceName();
  Node node = MakeNode(reduce.empty() ? "torch.scatter" : "torch.scatter_reduce", RuntimeInputs(3),
                       {OutputName(0)});
  node.params["dim"] = Parameter::FromInt(ClampToInt(Int("axis", 0)));
  if (!reduce.empty()) {
    node.params["reduce"] = Parameter::FromString(reduce);
    node.params["include_self"] = Parameter::FromBool(true);
  }
  EmitOutput(std::move(node));
}

// GatherND and ScatterND onto lumen.GatherND (batch_dims) and lumen.ScatterND (reduce, in
// torch.scatter_reduce's names), which follow ONNX's definitions.
void GraphBuilder::MapGatherNd() {
  Node node = MakeNode("lumen.GatherND", RuntimeInputs(2), {OutputName(0)});
  node.params["batch_dims"] = Parameter::FromInt(ClampToInt(Int("batch_dims", 0)));
  EmitOutput(std::move(node));
}

void GraphBuilder::MapScatterNd() {
  const std::string reduce = ScatterReduceName();
  Node node = MakeNode("lumen.ScatterND", RuntimeInputs(3), {OutputName(0)});
  if (!reduce.empty()) node.params["reduce"] = Parameter::FromString(reduce);
  EmitOutput(std::move(node));
}

// Where(condition, X, Y): torch.where, the three broadcast together.
void GraphBuilder::MapWhere() {
  EmitOutput(MakeNode("torch.where", RuntimeInputs(3), {OutputName(0)}));
}

}  // namespace onnx
}  // namespace lumen
