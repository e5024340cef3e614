// The pnnx.Expression language: a tokenizer and a recursive-descent parser.
//
// pnnx fuses chains of element-wise arithmetic into one operator whose `expr` parameter is a
// prefix, function-call expression over the operator's inputs:
//
//   expr     := call | input | number
//   call     := name '(' expr { ',' expr } ')'      add(@0,@1)  mul(pow(mul(@0,2),2),@1)
//   input    := '@' digits                          the operator's inputs by position
//   number   := 2  -1  0.5  2.000000e+00  1.0e-5  inf  nan  (True/False are 1/0)
//
// pnnx also writes a flattened form when one of its passes does not know a function: its own
// reader treats '(' ')' ',' alike, as separators of a prefix expression, so `expm1,sub(@0,0.5)`
// means expm1(sub(@0,0.5)). Text in which a known function is not followed by '(' is read that
// way: each function takes the next `arity` expressions.
//
// The text comes from a model file, which may be hostile: nesting is limited to
// kMaxExpressionDepth levels (the parser recurses once per level, and 20,000 nested calls would
// overflow the stack), and input numbers to kMaxExpressionInput.
#ifndef LUMEN_LAYER_ARITHMETIC_EXPRESSION_PARSER_HPP_
#define LUMEN_LAYER_ARITHMETIC_EXPRESSION_PARSER_HPP_

#include <string>
#include <vector>

namespace lumen {

// The deepest nesting of calls an expression may have; pnnx's deepest are about ten levels.
inline constexpr int kMaxExpressionDepth = 256;

// The largest N an `@N` may have; the operator's real input count is checked by the layer.
inline constexpr int kMaxExpressionInput = 1000000;

// Every function the language has that Lumen evaluates.
enum class ExpressionFunction {
  // binary
  kAdd,
  kSub,
  kMul,
  kDiv,
  kPow,
  kMaximum,
  kMinimum,
  kFloorDivide,
  kRemainder,
  kFmod,
  kAtan2,
  kLogAddExp,
  // unary
  kNeg,
  kAbs,
  kSqrt,
  kRsqrt,
  kExp,
  kExpm1,
  kLog,
  kLog10,
  kLog1p,
  kSin,
  kCos,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kSinh,
  kCosh,
  kTanh,
  kAsinh,
  kAcosh,
  kAtanh,
  kErf,
  kCeil,
  kFloor,
  kRound,
  kTrunc,
  kSign,
  kSquare,
  kReciprocal,
  // comparisons and logic: 1 for true, 0 for false (Lumen holds booleans as 0/1 floats)
  kEqual,
  kNotEqual,
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
  kLogicalAnd,
  kLogicalOr,
  kLogicalXor,
  kLogicalNot,
  // bitwise, on the integer each value holds (exactly, while below 2^24 in magnitude)
  kBitwiseAnd,
  kBitwiseOr,
  kBitwiseXor,
  kBitwiseNot,
  kLeftShift,
  kRightShift,
  // internal: copies (and broadcasts) its argument; used when the expression is a bare operand
  kIdentity,
};

// Number of arguments a function takes (1 or 2).
int ExpressionArity(ExpressionFunction function);

// True for the bitwise functions, which PyTorch refuses on floating-point tensors.
bool IsBitwiseExpressionFunction(ExpressionFunction function);

// The function's name as pnnx writes it.
const char* ExpressionFunctionName(ExpressionFunction function);

// One node of a parsed expression: an input reference, a constant, or a function call.
struct ExpressionNode {
  enum class Kind { kInput, kConstant, kCall };
  Kind kind = Kind::kConstant;
  int input_index = 0;                    // kInput: the N of @N
  float constant = 0.0f;                  // kConstant
  ExpressionFunction function{};          // kCall
  std::vector<ExpressionNode> arguments;  // kCall
  size_t position = 0;                    // where it starts in the text, for messages
};

// Parses an expression. Throws lumen::Error that quotes the text and the position of the problem
// (unknown function, wrong argument count, stray character, dynamic-shape helpers like size(),
// nesting deeper than kMaxExpressionDepth, an input number above kMaxExpressionInput).
ExpressionNode ParseExpression(const std::string& text);

// Largest @N in the expression plus one: the number of inputs it needs.
int CountExpressionInputs(const ExpressionNode& node);

}  // namespace lumen

#endif  // LUMEN_LAYER_ARITHMETIC_EXPRESSION_PARSER_HPP_
