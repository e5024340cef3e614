// torch.bitwise_and, _or, _xor, _not, _left_shift, _right_shift: bitwise operations on integer or
// bool tensors, which Lumen holds as whole-number floats (exact below 2^24 in magnitude); on a
// bool tensor and/or/xor are the logical ones and not is logical negation, as in PyTorch. Inputs
// the file declares floating-point are refused, as PyTorch refuses them. Each runs on the
// pnnx.Expression evaluator as one call (and(@0,@1), lshift(@0,@1), ...).
#include <string>

#include "layer/arithmetic/expression.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// The expression function of a bitwise op type; bitwise_not of a bool tensor is logical_not
// (~true is -2 on integers).
std::string BitwiseFunction(const LayerConfig& config) {
  const std::string& type = config.type();
  if (type == "torch.bitwise_and") return "and";
  if (type == "torch.bitwise_or") return "or";
  if (type == "torch.bitwise_xor") return "xor";
  if (type == "torch.bitwise_left_shift") return "lshift";
  if (type == "torch.bitwise_right_shift") return "rshift";
  return config.InputType(0) == DataType::kBool ? "logical_not" : "bitwise_not";
}

// A bitwise operation, as one call of the expression language.
using Bitwise = ElementwiseCall<BitwiseFunction>;

}  // namespace

LUMEN_REGISTER_LAYER(Bitwise, "torch.bitwise_and", "torch.bitwise_or", "torch.bitwise_xor",
                     "torch.bitwise_not", "torch.bitwise_left_shift", "torch.bitwise_right_shift");

}  // namespace lumen
