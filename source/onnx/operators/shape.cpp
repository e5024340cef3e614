// ONNX's shape arithmetic on values computed at run time: Shape and Size of an operand, then
// ConstantOfShape and Range of what was computed from them. They become layers (lumen.Shape,
// lumen.ConstantOfShape, lumen.Range) whose values a session computes when it plans, from the input
// shapes it is given, so that a model exported with dynamic axes runs at every size. Arithmetic on
// values known when loading is folded by constant_folding.cpp instead.
#include "lumen/error.hpp"
#include "onnx/onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

void GraphBuilder::MapShape() {
  Node node = MakeNode("lumen.Shape", {RuntimeInput(0)}, {OutputName(0)});
  if (FindAttribute(this->node(), "start")) {
    node.params["start"] = Parameter::FromInt(ClampToInt(Int("start", 0)));
  }
  if (FindAttribute(this->node(), "end")) {
    node.params["end"] = Parameter::FromInt(ClampToInt(Int("end", 0)));
  }
  EmitOutput(std::move(node));
}

// Size: the product of the extents, as a 0-d tensor.
void GraphBuilder::MapSize() {
  const std::string extents = NewOperandName(OutputName(0));
  Emit(MakeNode("lumen.Shape", {RuntimeInput(0)}, {extents}));
  Node product = MakeNode("torch.prod", {extents}, {OutputName(0)});
  product.params["dim"] = Parameter::FromInt(0);
  product.params["keepdim"] = Parameter::FromBool(false);
  EmitOutput(std::move(product));
}

void GraphBuilder::MapConstantOfShape() {
  float value = 0.0f;
  if (const lumen_onnx_proto::AttributeProto* attribute = FindAttribute(node(), "value")) {
    const ConstantTensor tensor = ReadTensorProto(attribute->t(), "", Where());
    if (tensor.size() != 1) Fail(Concat("value ", tensor.Describe(), " must be one number"));
    value = static_cast<float>(tensor.At(0));
  }
  Node node = MakeNode("lumen.ConstantOfShape", {RuntimeInput(0)}, {OutputName(0)});
  node.params["value"] = Parameter::FromFloat(value);
  EmitOutput(std::move(node));
}

void GraphBuilder::MapRange() {
  EmitOutput(MakeNode("lumen.Range", RuntimeInputs(3), {OutputName(0)}));
}

}  // namespace onnx
}  // namespace lumen
