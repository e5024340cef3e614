// ONNX Gather of a run-time value at known indices onto Tensor.select (one index) or
// torch.index_select (a list).
#include <algorithm>

#include "lumen/error.hpp"
#include "onnx/onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

void GraphBuilder::MapGather() {
  // Known indices from a run-time value. One index is Tensor.select (it drops the axis), a list
  // is torch.index_select; both check the range against the extent the data has at run time, so
  // an index past the end is an error naming the node, never an empty result.
  const ConstantTensor& indices = ConstantInput(1, "indices");
  if (indices.dims.size() > 1) Fail("indices of rank above 1 are not supported");
  const int64_t axis = Int("axis", 0);
  std::vector<int64_t> picked = indices.Integers();
  if (indices.dims.empty()) {
    Node select = MakeNode("Tensor.select", {RuntimeInput(0)}, {OutputName(0)});
    select.params["dim"] = Parameter::FromInt(ClampToInt(axis));
    select.params["index"] = Parameter::FromInt(ClampToInt(picked.at(0)));
    Emit(std::move(select));
    SetRuntimeOutput(0, OutputName(0));
    return;
  }
  // Made first so that it carries the ONNX node's own name into messages.
  Node gather = MakeNode("torch.index_select", {}, {OutputName(0)});
  gather.params["dim"] = Parameter::FromInt(ClampToInt(axis));
  // ONNX counts negative indices from the end; torch.index_select does not, so they are made
  // non-negative here, which needs the extent.
  std::string index_operand;
  if (std::any_of(picked.begin(), picked.end(), [](int64_t index) { return index < 0; })) {
    const std::vector<int64_t> dims = InputDims(0);
    const size_t normalized_axis =
        static_cast<size_t>(axis < 0 ? axis + RequireInputRank(0, "for a negative axis") : axis);
    if (normalized_axis >= dims.size() || dims[normalized_axis] < 0) {
      Fail("negative indices need the input's declared shape");
    }
    for (int64_t& index : picked) index += index < 0 ? dims[normalized_axis] : 0;
    index_operand = NewOperandName(Concat(OutputName(0), ":indices"));
    Node constant = MakeNode("pnnx.Attribute", {}, {index_operand});
    constant.attributes["data"] =
        ToAttribute(ConstantTensor::FromIntegers(picked), Concat(Where(), ": indices"));
    Emit(std::move(constant));
  } else {
    index_operand = RuntimeInput(1);
  }
  gather.input_names = {RuntimeInput(0), index_operand};
  Emit(std::move(gather));
  SetRuntimeOutput(0, OutputName(0));
}

}  // namespace onnx
}  // namespace lumen
