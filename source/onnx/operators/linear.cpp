// ONNX Gemm and MatMul with a known matrix onto nn.Linear, other Gemms and MatMuls onto
// torch.matmul, Einsum onto torch.einsum, and Det onto torch.det.
#include "lumen/error.hpp"
#include "onnx/onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

namespace {

// The (N,K) weight of a linear layer from a (K,N) matrix: its transpose.
ConstantTensor Transposed(const ConstantTensor& matrix) {
  const size_t rows = static_cast<size_t>(matrix.dims[0]);
  const size_t columns = static_cast<size_t>(matrix.dims[1]);
  ConstantTensor result;
  result.type = kFloat;
  result.dims = {matrix.dims[1], matrix.dims[0]};
  const std::vector<float> values = matrix.Floats();
  result.floats.resize(values.size());
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < columns; ++c) result.floats[c * rows + r] = values[r * columns + c];
  }
  return result;
}

}  // namespace

void GraphBuilder::MapGemm() {
  // Y = alpha * A' B' + beta * C: with a known B and a C that is one bias per column (or none),
  // this is nn.Linear. Anything else (transA, B or C computed at run time or given as graph
  // inputs, a C of other shape) is torch.matmul of the transposed operands, then the expression.
  const auto linear_bias = [&]() {
    if (!HasInput(2)) return true;
    if (!IsConstantInput(2) || !IsConstantInput(1)) return false;
    const ConstantTensor& b = constants_.at(node().input(1));
    const ConstantTensor& c = constants_.at(node().input(2));
    if (b.dims.size() != 2) return true;  // refused below, naming B
    const int64_t out_features = b.dims[Int("transB", 0) != 0 ? 0 : 1];
    return c.size() == 1 || (c.size() == static_cast<size_t>(out_features) &&
                             (c.dims.size() == 1 || (c.dims.size() == 2 && c.dims[0] == 1)));
  };
  if (Int("transA", 0) != 0 || !IsConstantInput(1) || !linear_bias()) {
    const float alpha = Float("alpha", 1.0f);
    const float beta = Float("beta", 1.0f);
    const auto transposed = [&](size_t index, const char* attribute) {
      if (Int(attribute, 0) == 0) return RuntimeInput(index);
      const std::string result = NewOperandName(Concat(OutputName(0), ":", attribute));
      Emit(MakeNode("torch.t", {RuntimeInput(index)}, {result}));
      return result;
    };
    const std::string a = transposed(0, "transA");
    const std::string b = transposed(1, "transB");
    const std::string product = NewOperandName(Concat(OutputName(0), ":product"));
    Emit(MakeNode("torch.matmul", {a, b}, {product}));
    if (HasInput(2)) {
      EmitExpressionOf(
          Concat("add(mul(@0,", NumberText(alpha), "),mul(@1,", NumberText(beta), "))"),
          {product, RuntimeInput(2)}, OutputName(0));
    } else {
      EmitExpressionOf(Concat("mul(@0,", NumberText(alpha), ")"), {product}, OutputName(0));
    }
    SetRuntimeOutput(0, OutputName(0));
    return;
  }
  // LESSON 16 BEGIN: alpha * A B' + beta * C with a known B and C as one nn.Linear
  const ConstantTensor& b = ConstantInput(1, "matrix B");
  if (b.dims.size() != 2) Fail(Concat("B must be a matrix, got ", b.Describe()));
  ConstantTensor weight = Int("transB", 0) != 0 ? b : Transposed(b);  // (N,K)
  weight.floats = weight.Floats();
  weight.integers.clear();
  weight.type = kFloat;
  const float alpha = Float("alpha", 1.0f);
  const float beta = Float("beta", 1.0f);
  for (float& value : weight.floats) value *= alpha;
  const int64_t out_features = weight.dims[0];
  Node node = MakeNode("nn.Linear", {RuntimeInput(0)}, {OutputName(0)});
  node.params["in_features"] = Parameter::FromInt(ClampToInt(weight.dims[1]));
  node.params["out_features"] = Parameter::FromInt(ClampToInt(out_features));
  node.params["bias"] = Parameter::FromBool(HasInput(2));
  node.attributes["weight"] = ToAttribute(weight, Where());
  if (HasInput(2)) {
    // C broadcasts to (M,N): here it is one bias per column (or a scalar), linear_bias() says.
    const ConstantTensor& c = ConstantInput(2, "bias C");
    const bool per_column = c.size() == static_cast<size_t>(out_features);
    ConstantTensor bias = ConstantTensor::FromDoubles(
        kFloat, {out_features}, std::vector<double>(static_cast<size_t>(out_features), 0.0));
    for (size_t i = 0; i < bias.floats.size(); ++i) {
      bias.floats[i] = beta * static_cast<float>(c.At(per_column ? i : 0));
    }
    node.attributes["bias"] = ToAttribute(bias, Where());
  }
  Emit(std::move(node));
  SetRuntimeOutput(0, OutputName(0));
  // LESSON 16 END
}

void GraphBuilder::MapMatMul() {
  if (IsConstantInput(1) && constants_.at(node().input(1)).dims.size() == 2) {
    // x @ W with a known (K,N) W is a linear layer with weight W^T.
    const ConstantTensor weight = Transposed(ConstantInput(1, "matrix"));
    Node node = MakeNode("nn.Linear", {RuntimeInput(0)}, {OutputName(0)});
    node.params["in_features"] = Parameter::FromInt(ClampToInt(weight.dims[1]));
    node.params["out_features"] = Parameter::FromInt(ClampToInt(weight.dims[0]));
    node.params["bias"] = Parameter::FromBool(false);
    node.attributes["weight"] = ToAttribute(weight, Where());
    Emit(std::move(node));
  } else {
    Emit(MakeNode("torch.matmul", RuntimeInputs(2), {OutputName(0)}));
  }
  SetRuntimeOutput(0, OutputName(0));
}

void GraphBuilder::MapEinsum() {
  Node node = MakeNode("torch.einsum", RuntimeInputs(InputCount()), {OutputName(0)});
  node.params["equation"] = Parameter::FromString(String("equation", ""));
  EmitOutput(std::move(node));
}

// Det: the determinant of each matrix of the last two axes, torch.det.
void GraphBuilder::MapDeterminant() {
  Emit(MakeNode("torch.det", {RuntimeInput(0)}, {OutputName(0)}));
  SetRuntimeOutput(0, OutputName(0));
}

}  // namespace onnx
}  // namespace lumen
