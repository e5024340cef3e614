// ONNX DequantizeLinear and QuantizeLinear onto their definitions, as expressions:
//   DequantizeLinear  y = (x - x_zero_point) * x_scale
//   QuantizeLinear    y = saturate(round(x / y_scale) + y_zero_point), ties to even, saturated to
//                     the zero point's type (uint8 0..255 without one; int8 -128..127)
// per tensor (a scalar scale) or per axis (a vector scale and zero point along `axis`, shaped to
// broadcast against x). Integer values travel as floats, exact up to 2^24: a QuantizeLinear's
// output is the integer as a float, which is all the DequantizeLinear after it needs (the pair
// ONNX Runtime's QDQ models put around every quantised tensor).
#include <string>
#include <vector>

#include "lumen/error.hpp"
#include "onnx/onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

std::vector<std::string> GraphBuilder::QuantizationOperands() {
  const int scale_rank = RequireInputRank(1, "to tell a per-tensor scale from a per-axis one");
  if (scale_rank > 1) Fail(Concat("the scale must be a scalar or a vector, got rank ", scale_rank));
  std::vector<std::string> operands = {RuntimeInput(0), RuntimeInput(1)};
  if (HasInput(2)) operands.push_back(RuntimeInput(2));
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
  return operands;
}

void GraphBuilder::MapDequantizeLinear() {
  const std::vector<std::string> operands = QuantizationOperands();
  EmitExpressionOf(operands.size() == 3 ? "mul(sub(@0,@2),@1)" : "mul(@0,@1)", operands,
                   OutputName(0));
  SetRuntimeOutput(0, OutputName(0));
}

void GraphBuilder::MapQuantizeLinear() {
  // The zero point's type sets the saturation range (uint8 when there is none).
  std::string range = "0),255)";
  if (HasInput(2)) {
    if (!IsConstantInput(2)) Fail("y_zero_point must be a constant (its type sets the range)");
    const int32_t type = ConstantInput(2, "y_zero_point").type;
    if (type == kInt8) {
      range = "-128),127)";
    } else if (type != kUInt8) {
      Fail(Concat("y_zero_point of type ", type, " (only uint8 and int8 are supported)"));
    }
  }
  const std::vector<std::string> operands = QuantizationOperands();
  const std::string rounded =
      operands.size() == 3 ? "add(round(div(@0,@1)),@2)" : "round(div(@0,@1))";
  EmitExpressionOf("minimum(maximum(" + rounded + "," + range, operands, OutputName(0));
  SetRuntimeOutput(0, OutputName(0));
}

}  // namespace onnx
}  // namespace lumen
