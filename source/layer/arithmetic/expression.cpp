// pnnx.Expression: element-wise arithmetic over the operator's inputs, with PyTorch broadcasting.
#include "layer/arithmetic/expression.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "math/fast_tanh.hpp"
#include "tensor/broadcast.hpp"

namespace lumen {

namespace {

// True for the complex element types, which Lumen does not compute.
bool IsComplex(DataType type) {
  return type == DataType::kComplex64 || type == DataType::kComplex128 ||
         type == DataType::kComplex32;
}

// An expression for a message: a hostile one can be megabytes long, so only its start.
std::string Shortened(const std::string& text) {
  constexpr size_t kQuoted = 120;
  if (text.size() <= kQuoted) return text;
  return Concat(text.substr(0, kQuoted), "... (", text.size(), " characters)");
}

// ---- the element functions, with PyTorch's semantics for the non-obvious ones ----------------

float Add(float a, float b) { return a + b; }
float Sub(float a, float b) { return a - b; }
float Mul(float a, float b) { return a * b; }
float Div(float a, float b) { return a / b; }
float Pow(float a, float b) { return std::pow(a, b); }
float Maximum(float a, float b) { return std::isnan(a) || a > b ? a : b; }  // NaN propagates
float Minimum(float a, float b) { return std::isnan(a) || a < b ? a : b; }
float Fmod(float a, float b) { return std::fmod(a, b); }
float Atan2(float a, float b) { return std::atan2(a, b); }
// Python's %: the result takes the divisor's sign.
float Remainder(float a, float b) {
  float result = std::fmod(a, b);
  if (result != 0.0f && ((b < 0.0f) != (result < 0.0f))) result += b;
  return result;
}
// Division rounded down, computed through fmod as PyTorch does to avoid rounding a/b first.
float FloorDivide(float a, float b) {
  if (b == 0.0f) return a / b;
  const float remainder = std::fmod(a, b);
  float quotient = (a - remainder) / b;
  if (remainder != 0.0f && ((b < 0.0f) != (remainder < 0.0f))) quotient -= 1.0f;
  if (quotient == 0.0f) return std::copysign(0.0f, a / b);
  float floored = std::floor(quotient);
  if (quotient - floored > 0.5f) floored += 1.0f;
  return floored;
}
float LogAddExp(float a, float b) {
  if (std::isinf(a) && a == b) return a;
  return std::max(a, b) + std::log1p(std::exp(-std::fabs(a - b)));
}

float Neg(float a) { return -a; }
float Abs(float a) { return std::fabs(a); }
float Sqrt(float a) { return std::sqrt(a); }
float Rsqrt(float a) { return 1.0f / std::sqrt(a); }
float Exp(float a) { return std::exp(a); }
float Expm1(float a) { return std::expm1(a); }
float Log(float a) { return std::log(a); }
float Log10(float a) { return std::log10(a); }
float Log1p(float a) { return std::log1p(a); }
float Sin(float a) { return std::sin(a); }
float Cos(float a) { return std::cos(a); }
float Tan(float a) { return std::tan(a); }
float Asin(float a) { return std::asin(a); }
float Acos(float a) { return std::acos(a); }
float Atan(float a) { return std::atan(a); }
float Sinh(float a) { return std::sinh(a); }
float Cosh(float a) { return std::cosh(a); }
// FastTanh (1 ulp) vectorises where std::tanh, a libm call, does not.
float Tanh(float a) { return FastTanh(a); }
float Asinh(float a) { return std::asinh(a); }
float Acosh(float a) { return std::acosh(a); }
float Atanh(float a) { return std::atanh(a); }
float Erf(float a) { return std::erf(a); }
float Ceil(float a) { return std::ceil(a); }
float Floor(float a) { return std::floor(a); }
float Round(float a) { return std::nearbyint(a); }  // halves to even, like torch.round
float Trunc(float a) { return std::trunc(a); }
float Sign(float a) { return a > 0.0f ? 1.0f : (a < 0.0f ? -1.0f : a); }  // keeps 0 and NaN
float Square(float a) { return a * a; }
float Reciprocal(float a) { return 1.0f / a; }
float Identity(float a) { return a; }

// Comparisons and logic give 1 (true) or 0 (false); any nonzero value, NaN included, is true.
float Truth(bool value) { return value ? 1.0f : 0.0f; }
float Equal(float a, float b) { return Truth(a == b); }
float NotEqual(float a, float b) { return Truth(a != b); }
float Less(float a, float b) { return Truth(a < b); }
float LessEqual(float a, float b) { return Truth(a <= b); }
float Greater(float a, float b) { return Truth(a > b); }
float GreaterEqual(float a, float b) { return Truth(a >= b); }
float LogicalAnd(float a, float b) { return Truth(a != 0.0f && b != 0.0f); }
float LogicalOr(float a, float b) { return Truth(a != 0.0f || b != 0.0f); }
float LogicalXor(float a, float b) { return Truth((a != 0.0f) != (b != 0.0f)); }
float LogicalNot(float a) { return Truth(a == 0.0f); }

// The integer an element of an integer (or bool) tensor holds. Such values are whole numbers, and
// exact while below 2^24 in magnitude; anything a 64-bit integer cannot hold (only a float tensor
// could have it, which PyTorch's bitwise ops refuse) reads as 0 rather than overflowing.
int64_t Integer(float a) {
  constexpr float kLimit = 9.2e18f;  // below 2^63
  return std::fabs(a) < kLimit ? static_cast<int64_t>(a) : 0;
}
float BitwiseAnd(float a, float b) { return static_cast<float>(Integer(a) & Integer(b)); }
float BitwiseOr(float a, float b) { return static_cast<float>(Integer(a) | Integer(b)); }
float BitwiseXor(float a, float b) { return static_cast<float>(Integer(a) ^ Integer(b)); }
float BitwiseNot(float a) { return static_cast<float>(~Integer(a)); }
// Shifts of 64-bit integers; a shift by a negative count or past the width gives 0 (left) or the
// sign (right), as PyTorch's do.
float LeftShift(float a, float b) {
  const int64_t count = Integer(b);
  if (count < 0 || count >= 64) return 0.0f;
  return static_cast<float>(static_cast<int64_t>(static_cast<uint64_t>(Integer(a)) << count));
}
float RightShift(float a, float b) {
  const int64_t value = Integer(a);
  const int64_t count = Integer(b);
  if (count < 0 || count >= 64) return value < 0 ? -1.0f : 0.0f;
  return static_cast<float>(value >> count);
}

// ---- loops over one run of elements: out[i] = f(a[i * stride_a], b[i * stride_b]) -----------

using Loop = void (*)(float* out, const float* a, size_t stride_a, const float* b, size_t stride_b,
                      size_t count);

// The common strides get their own loops so that the compiler vectorises them.
template <float (*F)(float, float)>
void BinaryLoop(float* out, const float* a, size_t stride_a, const float* b, size_t stride_b,
                size_t count) {
  if (stride_a == 1 && stride_b == 1) {
    for (size_t i = 0; i < count; ++i) out[i] = F(a[i], b[i]);
  } else if (stride_a == 1 && stride_b == 0) {
    const float scalar = *b;
    for (size_t i = 0; i < count; ++i) out[i] = F(a[i], scalar);
  } else if (stride_a == 0 && stride_b == 1) {
    const float scalar = *a;
    for (size_t i = 0; i < count; ++i) out[i] = F(scalar, b[i]);
  } else {
    for (size_t i = 0; i < count; ++i) out[i] = F(a[i * stride_a], b[i * stride_b]);
  }
}

template <float (*F)(float)>
void UnaryLoop(float* out, const float* a, size_t stride_a, const float* /*b*/, size_t /*stride_b*/,
               size_t count) {
  if (stride_a == 1) {
    for (size_t i = 0; i < count; ++i) out[i] = F(a[i]);
  } else {
    for (size_t i = 0; i < count; ++i) out[i] = F(a[i * stride_a]);
  }
}

Loop LoopFor(ExpressionFunction function) {
  using F = ExpressionFunction;
  switch (function) {
    case F::kAdd:
      return BinaryLoop<Add>;
    case F::kSub:
      return BinaryLoop<Sub>;
    case F::kMul:
      return BinaryLoop<Mul>;
    case F::kDiv:
      return BinaryLoop<Div>;
    case F::kPow:
      return BinaryLoop<Pow>;
    case F::kMaximum:
      return BinaryLoop<Maximum>;
    case F::kMinimum:
      return BinaryLoop<Minimum>;
    case F::kFloorDivide:
      return BinaryLoop<FloorDivide>;
    case F::kRemainder:
      return BinaryLoop<Remainder>;
    case F::kFmod:
      return BinaryLoop<Fmod>;
    case F::kAtan2:
      return BinaryLoop<Atan2>;
    case F::kLogAddExp:
      return BinaryLoop<LogAddExp>;
    case F::kNeg:
      return UnaryLoop<Neg>;
    case F::kAbs:
      return UnaryLoop<Abs>;
    case F::kSqrt:
      return UnaryLoop<Sqrt>;
    case F::kRsqrt:
      return UnaryLoop<Rsqrt>;
    case F::kExp:
      return UnaryLoop<Exp>;
    case F::kExpm1:
      return UnaryLoop<Expm1>;
    case F::kLog:
      return UnaryLoop<Log>;
    case F::kLog10:
      return UnaryLoop<Log10>;
    case F::kLog1p:
      return UnaryLoop<Log1p>;
    case F::kSin:
      return UnaryLoop<Sin>;
    case F::kCos:
      return UnaryLoop<Cos>;
    case F::kTan:
      return UnaryLoop<Tan>;
    case F::kAsin:
      return UnaryLoop<Asin>;
    case F::kAcos:
      return UnaryLoop<Acos>;
    case F::kAtan:
      return UnaryLoop<Atan>;
    case F::kSinh:
      return UnaryLoop<Sinh>;
    case F::kCosh:
      return UnaryLoop<Cosh>;
    case F::kTanh:
      return UnaryLoop<Tanh>;
    case F::kAsinh:
      return UnaryLoop<Asinh>;
    case F::kAcosh:
      return UnaryLoop<Acosh>;
    case F::kAtanh:
      return UnaryLoop<Atanh>;
    case F::kErf:
      return UnaryLoop<Erf>;
    case F::kCeil:
      return UnaryLoop<Ceil>;
    case F::kFloor:
      return UnaryLoop<Floor>;
    case F::kRound:
      return UnaryLoop<Round>;
    case F::kTrunc:
      return UnaryLoop<Trunc>;
    case F::kSign:
      return UnaryLoop<Sign>;
    case F::kSquare:
      return UnaryLoop<Square>;
    case F::kReciprocal:
      return UnaryLoop<Reciprocal>;
    case F::kIdentity:
      return UnaryLoop<Identity>;
    case F::kEqual:
      return BinaryLoop<Equal>;
    case F::kNotEqual:
      return BinaryLoop<NotEqual>;
    case F::kLess:
      return BinaryLoop<Less>;
    case F::kLessEqual:
      return BinaryLoop<LessEqual>;
    case F::kGreater:
      return BinaryLoop<Greater>;
    case F::kGreaterEqual:
      return BinaryLoop<GreaterEqual>;
    case F::kLogicalAnd:
      return BinaryLoop<LogicalAnd>;
    case F::kLogicalOr:
      return BinaryLoop<LogicalOr>;
    case F::kLogicalXor:
      return BinaryLoop<LogicalXor>;
    case F::kLogicalNot:
      return UnaryLoop<LogicalNot>;
    case F::kBitwiseAnd:
      return BinaryLoop<BitwiseAnd>;
    case F::kBitwiseOr:
      return BinaryLoop<BitwiseOr>;
    case F::kBitwiseXor:
      return BinaryLoop<BitwiseXor>;
    case F::kBitwiseNot:
      return UnaryLoop<BitwiseNot>;
    case F::kLeftShift:
      return BinaryLoop<LeftShift>;
    case F::kRightShift:
      return BinaryLoop<RightShift>;
  }
  return nullptr;
}

// What an instruction reads while it runs: one of the operator's inputs, a constant of the layer,
// or a buffer of the session's state.
struct Source {
  enum class Kind { kInput, kConstant, kBuffer };
  Kind kind = Kind::kConstant;
  int index = 0;
};

// One instruction, planned for one set of shapes.
struct Step {
  Loop loop;
  Source arguments[2];
  int result_buffer;  // -1: the output
  BroadcastWalk walk;
};

// Per session: the instructions' walks and the buffers of the intermediate results.
class ExpressionState : public LayerState {
 public:
  // The buffers' bytes (the walks are small).
  size_t bytes() const override {
    size_t total = 0;
    for (const std::vector<float>& buffer : buffers) total += buffer.size() * sizeof(float);
    return total;
  }

  std::vector<Step> steps;
  std::vector<std::vector<float>> buffers;
};

}  // namespace

Expression::Expression(const LayerConfig& config)
    : Expression(config, config.Param("expr").text()) {}

Expression::Expression(const LayerConfig& config, const std::string& text)
    : Layer(config), text_(text), input_count_(config.input_count()) {
  for (size_t input = 0; input < input_count_; ++input) {
    if (IsComplex(config.InputType(input))) {
      Fail(Concat("input ", input, " is complex (", DataTypeName(config.InputType(input)),
                  "): Lumen computes real float32 tensors only"));
    }
  }
  try {
    tree_ = ParseExpression(text_);
  } catch (const Error& error) {
    Fail(error.what());
  }
  // The file says how many operands the operator reads; an @N past them would read another
  // operator's memory (or, wrapped around, input 0).
  const int needed = CountExpressionInputs(tree_);
  if (static_cast<size_t>(needed) > input_count_) {
    Fail(Concat("expression '", Shortened(text_), "' reads input @", needed - 1,
                " but the operator has ", input_count_, " input(s)"));
  }
  result_ = Compile(tree_);
  RefuseBitwiseOfFloats(config, tree_);
}

void Expression::RefuseBitwiseOfFloats(const LayerConfig& config,
                                       const ExpressionNode& node) const {
  for (const ExpressionNode& argument : node.arguments) {
    RefuseBitwiseOfFloats(config, argument);
    if (!IsBitwiseExpressionFunction(node.function) ||
        argument.kind != ExpressionNode::Kind::kInput) {
      continue;
    }
    const DataType type = config.InputType(static_cast<size_t>(argument.input_index));
    if (type == DataType::kFloat32 || type == DataType::kFloat64 || type == DataType::kFloat16 ||
        type == DataType::kBFloat16) {
      Fail(Concat("'", ExpressionFunctionName(node.function), "' at position ", node.position,
                  " of '", Shortened(text_), "' is bitwise, and input @", argument.input_index,
                  " is ", DataTypeName(type), ": bitwise operations need integer or bool tensors"));
    }
  }
}

Expression::Value Expression::Compile(const ExpressionNode& node) {
  Value value;
  if (node.kind == ExpressionNode::Kind::kInput) {
    value.kind = Value::Kind::kInput;
    value.index = node.input_index;
    return value;
  }
  if (node.kind == ExpressionNode::Kind::kConstant) {
    value.index = static_cast<int>(constants_.size());
    constants_.push_back(node.constant);
    return value;
  }
  Instruction instruction;
  instruction.function = node.function;
  instruction.arity = static_cast<int>(node.arguments.size());
  instruction.position = node.position;
  bool all_constant = true;
  for (int i = 0; i < instruction.arity; ++i) {
    instruction.arguments[i] = Compile(node.arguments[static_cast<size_t>(i)]);
    all_constant = all_constant && instruction.arguments[i].kind == Value::Kind::kConstant;
  }
  if (instruction.arity == 1) instruction.arguments[1] = instruction.arguments[0];
  const Loop loop = LoopFor(node.function);
  if (all_constant) {
    // Fold it now, with the same function the loops use, so that it rounds the same way.
    float folded = 0.0f;
    loop(&folded, &constants_[static_cast<size_t>(instruction.arguments[0].index)], 0,
         &constants_[static_cast<size_t>(instruction.arguments[1].index)], 0, 1);
    value.index = static_cast<int>(constants_.size());
    constants_.push_back(folded);
    return value;
  }
  value.kind = Value::Kind::kInstruction;
  value.index = static_cast<int>(program_.size());
  program_.push_back(instruction);
  return value;
}

const Shape& Expression::ShapeOf(const Value& value, const std::vector<Shape>& input_shapes,
                                 const std::vector<Shape>& instruction_shapes) const {
  static const Shape kScalar;
  switch (value.kind) {
    case Value::Kind::kInput:
      return input_shapes[static_cast<size_t>(value.index)];
    case Value::Kind::kInstruction:
      return instruction_shapes[static_cast<size_t>(value.index)];
    case Value::Kind::kConstant:
      break;
  }
  return kScalar;
}

std::vector<Shape> Expression::InstructionShapes(const std::vector<Shape>& input_shapes) const {
  CheckInputCount(input_shapes, input_count_);
  std::vector<Shape> shapes;
  shapes.reserve(program_.size());
  for (const Instruction& instruction : program_) {
    const Shape& first = ShapeOf(instruction.arguments[0], input_shapes, shapes);
    if (instruction.arity == 1) {
      shapes.push_back(first);
      continue;
    }
    const Shape& second = ShapeOf(instruction.arguments[1], input_shapes, shapes);
    try {
      shapes.push_back(BroadcastShapes(first, second));
    } catch (const Error& error) {
      Fail(Concat("'", ExpressionFunctionName(instruction.function), "' at position ",
                  instruction.position, " of '", Shortened(text_), "': ", error.what()));
    }
  }
  return shapes;
}

Shapes Expression::OutputShapes(const Shapes& input_shapes) const {
  const std::vector<Shape> shapes = InstructionShapes(input_shapes);
  return {ShapeOf(result_, input_shapes, shapes)};
}

StatePointer Expression::Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                                 const PrepareContext& /*context*/) const {
  const std::vector<Shape> shapes = InstructionShapes(input_shapes);
  const Shape& output = output_shapes.at(0);
  auto state = std::make_unique<ExpressionState>();
  // Buffers for intermediate results: a result gets a free buffer (grown if needed), and the
  // buffers of the values it read become free once it is computed. The result never shares a
  // buffer with an argument, whose elements a broadcasting walk may still read after writing.
  std::vector<size_t> capacities;
  std::vector<int> free_buffers;
  std::vector<int> buffer_of(program_.size(), -1);
  const auto source_of = [&](const Value& value) {
    switch (value.kind) {
      case Value::Kind::kInput:
        return Source{Source::Kind::kInput, value.index};
      case Value::Kind::kConstant:
        return Source{Source::Kind::kConstant, value.index};
      case Value::Kind::kInstruction:
        break;
    }
    return Source{Source::Kind::kBuffer, buffer_of[static_cast<size_t>(value.index)]};
  };
  const bool result_is_instruction = result_.kind == Value::Kind::kInstruction;
  for (size_t i = 0; i < program_.size(); ++i) {
    const Instruction& instruction = program_[i];
    const bool writes_output =
        result_is_instruction && i == static_cast<size_t>(result_.index) && shapes[i] == output;
    if (!writes_output) {
      const size_t size = ShapeElementCount(shapes[i]);
      // The smallest free buffer that holds it; else the largest free one, grown; else a new one.
      int chosen = -1;
      for (int buffer : free_buffers) {
        const size_t capacity = capacities[static_cast<size_t>(buffer)];
        if (chosen < 0) {
          chosen = buffer;
          continue;
        }
        const size_t best = capacities[static_cast<size_t>(chosen)];
        const bool better = best >= size ? (capacity >= size && capacity < best) : capacity > best;
        if (better) chosen = buffer;
      }
      if (chosen < 0) {
        chosen = static_cast<int>(capacities.size());
        capacities.push_back(0);
      } else {
        free_buffers.erase(std::find(free_buffers.begin(), free_buffers.end(), chosen));
      }
      buffer_of[i] = chosen;
      capacities[static_cast<size_t>(chosen)] =
          std::max(capacities[static_cast<size_t>(chosen)], size);
    }
    std::vector<Shape> argument_shapes;
    for (int a = 0; a < instruction.arity; ++a) {
      argument_shapes.push_back(ShapeOf(instruction.arguments[a], input_shapes, shapes));
    }
    state->steps.push_back(
        Step{LoopFor(instruction.function),
             {source_of(instruction.arguments[0]), source_of(instruction.arguments[1])},
             buffer_of[i],
             BroadcastWalk(shapes[i], argument_shapes)});
    for (int a = 0; a < instruction.arity; ++a) {
      const Value& argument = instruction.arguments[a];
      if (argument.kind != Value::Kind::kInstruction) continue;
      const int buffer = buffer_of[static_cast<size_t>(argument.index)];
      if (buffer >= 0 &&
          std::find(free_buffers.begin(), free_buffers.end(), buffer) == free_buffers.end()) {
        free_buffers.push_back(buffer);
      }
    }
  }
  if (state->steps.empty() || state->steps.back().result_buffer >= 0) {
    // A bare input or constant (or a result that still has to broadcast): copy it into the output.
    const Shape& shape = ShapeOf(result_, input_shapes, shapes);
    if (BroadcastShapes(shape, output) != output) {
      Fail(Concat("'", Shortened(text_), "' gives shape ", ShapeToString(shape), ", the output is ",
                  ShapeToString(output)));
    }
    const Source result = source_of(result_);
    state->steps.push_back(Step{LoopFor(ExpressionFunction::kIdentity),
                                {result, result},
                                -1,
                                BroadcastWalk(output, {shape})});
  }
  for (size_t capacity : capacities) state->buffers.emplace_back(capacity);
  return state;
}

void Expression::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                         const ForwardContext& context) const {
  ExpressionState& state = context.state_as<ExpressionState>();
  const auto address = [&](const Source& source) -> const float* {
    switch (source.kind) {
      case Source::Kind::kInput:
        return inputs[static_cast<size_t>(source.index)]->data();
      case Source::Kind::kConstant:
        return &constants_[static_cast<size_t>(source.index)];
      case Source::Kind::kBuffer:
        break;
    }
    return state.buffers[static_cast<size_t>(source.index)].data();
  };
  for (const Step& step : state.steps) {
    float* result = step.result_buffer < 0
                        ? outputs[0]->data()
                        : state.buffers[static_cast<size_t>(step.result_buffer)].data();
    const float* first = address(step.arguments[0]);
    const float* second = address(step.arguments[1]);
    const Loop loop = step.loop;
    const BroadcastWalk& walk = step.walk;
    walk.ForEachRun(
        [&](const BroadcastWalk::Run& run) {
          loop(result + run.result_offset, first + run.operand_offsets[0], walk.inner_stride(0),
               second + run.operand_offsets[1], walk.inner_stride(1), run.count);
        },
        context.compute.pool);
  }
}

const ExpressionNode* Expression::ElementwiseExpressionTree() const { return &tree_; }

bool Expression::MultipliesItsTwoInputs() const {
  if (input_count_ != 2 || program_.size() != 1 || result_.kind != Value::Kind::kInstruction) {
    return false;
  }
  const Instruction& product = program_[0];
  const Value& first = product.arguments[0];
  const Value& second = product.arguments[1];
  return product.function == ExpressionFunction::kMul && product.arity == 2 &&
         first.kind == Value::Kind::kInput && second.kind == Value::Kind::kInput &&
         first.index != second.index;  // both inputs, in either order
}

std::string ElementwiseExpression(const LayerConfig& config, const std::string& function) {
  const size_t operands = config.input_count();
  if (operands == 2) {
    // $input first; pnnx lists the operands in that order, but the roles say it.
    const int other = config.InputIndexOfRole("other");
    return Concat(function, other == 0 ? "(@1,@0)" : "(@0,@1)");
  }
  if (operands == 1 && config.HasParam("other")) {
    // %.9g gives back the float the file holds (and inf / nan, which the parser reads).
    char number[32];
    std::snprintf(number, sizeof(number), "%.9g", config.FloatParam("other"));
    return Concat(function, "(@0,", number, ")");
  }
  return Concat(function, "(@0)");
}

std::string FunctionOfOpType(const LayerConfig& config) {
  return config.type().substr(config.type().find('.') + 1);
}

LUMEN_REGISTER_LAYER(Expression, "pnnx.Expression");

}  // namespace lumen
