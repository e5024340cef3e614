// ONNX DequantizeLinear onto its definition, y = (x - x_zero_point) * x_scale, as an expression:
// per tensor (a scalar scale) or per axis (a vector scale and zero point along `axis`, shaped to
// broadcast against x). Integer x and zero points arrive as floats, exact up to 2^24.
#include "lumen/error.hpp"
#include "onnx/onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

void GraphBuilder::MapDequantizeLinear() {
  const int scale_rank = RequireInputRank(1, "to tell a per-tensor scale from a per-axis one");
  if (scale_rank > 1) Fail(Concat("the scale must be a scalar or a vector, got rank ", scale_rank));
  const bool has_zero_point = HasInput(2);
  std::vector<std::string> operands = {RuntimeInput(0), RuntimeInput(1)};
  if (has_zero_point) operands.push_back(RuntimeInput(2));
  if (scale_rank == 1) {
    // Per axis: the scale and zero point get one trailing axis of extent 1 per axis of x after
    // `axis`, so that they broadcast along it.
    const int rank = RequireInputRank(0, "for a per-axis scale");
    const int64_t axis = Int("axis", 1);
    const int64_t first = axis < 0 ? axis + rank : axis;
    if (first < 0 || first >= rank) Fail(Concat("axis ", axis, " is out of range for rank ", rank));
    for (size_t operand = 1; operand < operands.size(); ++operand) {
      operands[operand] = EmitTrailingUnitAxes(operands[operand], rank - first - 1, "");
    }
  }
  EmitExpressionOf(has_zero_point ? "mul(sub(@0,@2),@1)" : "mul(@0,@1)", operands, OutputName(0));
  SetRuntimeOutput(0, OutputName(0));
}

}  // namespace onnx
}  // namespace lumen
