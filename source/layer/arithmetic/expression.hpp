// pnnx.Expression: element-wise arithmetic over the operator's inputs, with PyTorch broadcasting.
// Other element-wise ops (torch.eq, torch.logical_and, torch.bitwise_and, ...) are one call of
// the same language and run on the same evaluator (see ElementwiseExpression).
#ifndef LUMEN_LAYER_ARITHMETIC_EXPRESSION_HPP_
#define LUMEN_LAYER_ARITHMETIC_EXPRESSION_HPP_

#include <memory>
#include <string>
#include <vector>

#include "layer/arithmetic/expression_parser.hpp"
#include "layer/layer.hpp"

namespace lumen {

// Evaluates the parsed `expr` one function at a time over whole tensors.
//
// The constructor turns the expression tree into a program: a list of instructions, innermost
// calls first, each applying one function to one or two values (an input, a constant, or an
// earlier instruction's result). Sub-expressions of constants only are computed there, once.
// OutputShapes broadcasts the shapes through the program as PyTorch would. Prepare plans each
// instruction's broadcasting walk for the session's shapes and gives every intermediate result a
// buffer (buffers are reused once their value has been read); the last instruction writes the
// output. Forward only runs the walks.
class Expression : public Layer {
 public:
  // Parses the operator's `expr` parameter and builds the program; throws lumen::Error on a
  // malformed expression, an `@N` beyond the operator's inputs, a complex operand, or a bitwise
  // function of an operand the file declares floating-point.
  explicit Expression(const LayerConfig& config);
  // The same for an operator whose arithmetic is the expression `text` (torch.eq is `eq(@0,@1)`).
  Expression(const LayerConfig& config, const std::string& text);
  // The broadcast shape of the whole expression.
  Shapes OutputShapes(const Shapes&) const override;
  // Plans every instruction's walk and the intermediate buffers for these shapes.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Runs the instructions in order.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;
  // True for mul(@0,@1) and mul(@1,@0): the product the gated-activation pass looks for.
  bool MultipliesItsTwoInputs() const override;
  // The parsed expression, for the passes that recognise arithmetic (LayerNorm written out).
  const ExpressionNode* ElementwiseExpressionTree() const override;

 private:
  // A value an instruction reads.
  struct Value {
    enum class Kind { kInput, kConstant, kInstruction };
    Kind kind = Kind::kConstant;
    int index = 0;  // input number, constant number or instruction number
  };
  // One function applied over whole tensors.
  struct Instruction {
    ExpressionFunction function{};
    int arity = 1;
    Value arguments[2];   // the second is unused for unary functions
    size_t position = 0;  // where the call starts in the text, for messages
  };

  // Throws if a bitwise function in `node` reads an input the file declares floating-point
  // (PyTorch refuses those; their values are not the integers the functions work on).
  void RefuseBitwiseOfFloats(const LayerConfig& config, const ExpressionNode& node) const;
  // Appends the instructions that compute `node` (folding calls of constants) and returns its
  // value.
  Value Compile(const ExpressionNode& node);
  // The shape of every instruction's result for these input shapes (throws naming the call when
  // two shapes do not broadcast).
  std::vector<Shape> InstructionShapes(const std::vector<Shape>& input_shapes) const;
  // The shape of `value` given the instructions' shapes.
  const Shape& ShapeOf(const Value& value, const std::vector<Shape>& input_shapes,
                       const std::vector<Shape>& instruction_shapes) const;

  std::string text_;
  ExpressionNode tree_;  // the parsed text, as the passes read it
  size_t input_count_ = 0;
  std::vector<float> constants_;
  std::vector<Instruction> program_;
  Value result_;  // what the whole expression evaluates to
};

// The expression of an op that applies `function` to its operands the way pnnx writes torch.eq
// and friends: `f(@0)` for a unary function; `f(@0,@1)` for two operands ($input and $other, in
// that order); `f(@0,<other>)` when the second is the scalar parameter `other`.
std::string ElementwiseExpression(const LayerConfig& config, const std::string& function);

// The expression function an op type names after its namespace: "torch.eq" -> "eq".
std::string FunctionOfOpType(const LayerConfig& config);

// An op computed as one call of the expression language (ElementwiseExpression) of the function
// kFunction names for its config: the comparisons, the logical and the bitwise ops.
template <std::string (*kFunction)(const LayerConfig&) = FunctionOfOpType>
class ElementwiseCall : public Expression {
 public:
  // Writes the call and compiles it.
  explicit ElementwiseCall(const LayerConfig& config)
      : Expression(config, ElementwiseExpression(config, kFunction(config))) {}
};

}  // namespace lumen

#endif  // LUMEN_LAYER_ARITHMETIC_EXPRESSION_HPP_
