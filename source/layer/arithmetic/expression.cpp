// pnnx.Expression: element-wise arithmetic over the operator's inputs, with PyTorch broadcasting.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "layer/arithmetic/expression_parser.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/broadcast.hpp"

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
  // malformed expression or an `@N` beyond the operator's inputs.
  explicit Expression(const LayerConfig& config);
  // The broadcast shape of the whole expression.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Plans every instruction's walk and the intermediate buffers for these shapes.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override;
  // Runs the instructions in order.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;
  // True for mul(@0,@1) and mul(@1,@0): the product the gated-activation pass looks for.
  bool MultipliesItsTwoInputs() const override;

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
  size_t input_count_ = 0;
  std::vector<float> constants_;
  std::vector<Instruction> program_;
  Value result_;  // what the whole expression evaluates to
};

namespace {

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
float Tanh(float a) { return std::tanh(a); }
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
    : Layer(config), text_(config.Param("expr").text()), input_count_(config.input_count()) {
  ExpressionNode root;
  try {
    root = ParseExpression(text_);
  } catch (const Error& error) {
    Fail(error.what());
  }
  // The file says how many operands the operator reads; an @N past them would read another
  // operator's memory (or, wrapped around, input 0).
  const int needed = CountExpressionInputs(root);
  if (static_cast<size_t>(needed) > input_count_) {
    Fail(Concat("expression '", Shortened(text_), "' reads input @", needed - 1,
                " but the operator has ", input_count_, " input(s)"));
  }
  result_ = Compile(root);
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

std::vector<Shape> Expression::OutputShapes(const std::vector<Shape>& input_shapes) const {
  const std::vector<Shape> shapes = InstructionShapes(input_shapes);
  return {ShapeOf(result_, input_shapes, shapes)};
}

std::unique_ptr<LayerState> Expression::Prepare(const std::vector<Shape>& input_shapes,
                                                const std::vector<Shape>& output_shapes,
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

void Expression::Forward(const std::vector<const Tensor*>& inputs,
                         const std::vector<Tensor*>& outputs, const ForwardContext& context) const {
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

LUMEN_REGISTER_LAYER(Expression, "pnnx.Expression");

}  // namespace lumen
