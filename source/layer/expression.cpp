#include "lumen/layer/expression.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "lumen/base/error.hpp"
#include "lumen/layer/layer_registry.hpp"

namespace lumen {
namespace {

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

}  // namespace

Expression::Expression(const RuntimeOperator& op) : Layer(op) {
  text_ = op.StringParam("expr");
  try {
    root_ = ParseExpression(text_);
  } catch (const Error& error) {
    Fail(error.what());
  }
  input_count_ = CountExpressionInputs(root_);
}

int Expression::Compile(const ExpressionNode& node) {
  Value value;
  if (node.kind == ExpressionNode::Kind::kInput) {
    value.source = Value::Source::kInput;
    value.index = node.input_index;
    value.shape = input_sample_shapes_[node.input_index];
  } else if (node.kind == ExpressionNode::Kind::kConstant) {
    value.constant = node.constant;
  } else {
    int arguments[2] = {0, 0};
    bool all_constant = true;
    std::vector<Shape> argument_shapes;
    for (size_t i = 0; i < node.arguments.size(); ++i) {
      arguments[i] = Compile(node.arguments[i]);
      all_constant = all_constant && values_[arguments[i]].source == Value::Source::kConstant;
      argument_shapes.push_back(values_[arguments[i]].shape);
    }
    const Loop loop = LoopFor(node.function);
    if (all_constant) {  // fold it now, with the same function the loops use
      const float& second = values_[arguments[node.arguments.size() - 1]].constant;
      loop(&value.constant, &values_[arguments[0]].constant, 0, &second, 0, 1);
    } else {
      value.source = Value::Source::kTemporary;
      value.index = static_cast<int>(temporaries_.size());
      temporaries_.emplace_back();
      try {
        value.shape = argument_shapes.size() == 2
                          ? BroadcastShapes(argument_shapes[0], argument_shapes[1])
                          : argument_shapes[0];
      } catch (const Error& error) {
        Fail(Concat("'", ExpressionFunctionName(node.function), "' at position ", node.position,
                    " of '", text_, "': ", error.what()));
      }
      Step step;
      step.function = node.function;
      step.arguments[0] = arguments[0];
      step.arguments[1] = arguments[node.arguments.size() - 1];
      step.result = static_cast<int>(values_.size());
      step.walk = std::make_unique<BroadcastWalk>(value.shape, argument_shapes);
      steps_.push_back(std::move(step));
    }
  }
  values_.push_back(value);
  return static_cast<int>(values_.size()) - 1;
}

void Expression::Prepare(const std::vector<Shape>& input_shapes,
                         const std::vector<Shape>& output_shapes) {
  if (static_cast<int>(input_shapes.size()) < input_count_ || output_shapes.size() != 1) {
    Fail(Concat("'", text_, "' uses ", input_count_, " input(s) and one output, the graph gives ",
                input_shapes.size(), " and ", output_shapes.size()));
  }
  const Shape& output = output_shapes[0];
  const size_t rank = output.size();
  const Shape output_sample(output.begin() + 1, output.end());
  input_sample_shapes_.clear();
  input_modes_.clear();
  gathered_inputs_.assign(input_shapes.size(), Tensor());
  for (size_t i = 0; i < input_shapes.size(); ++i) {
    const Shape& input = input_shapes[i];
    // Inputs of the output's rank carry the batch first (N, or 1 to broadcast). A lower-rank input
    // (a constant such as (C,1,1)) aligns with the output's trailing dimensions instead.
    if (input.size() == rank && (input[0] == output[0] || input[0] == 1)) {
      input_modes_.push_back(input[0] == output[0] ? InputMode::kPerSample
                                                   : InputMode::kFirstSample);
      input_sample_shapes_.emplace_back(input.begin() + 1, input.end());
    } else if (input.size() < rank && input[0] == 1) {
      input_modes_.push_back(InputMode::kFirstSample);
      input_sample_shapes_.emplace_back(input.begin() + 1, input.end());
    } else if (input.size() < rank) {
      input_modes_.push_back(InputMode::kGathered);
      input_sample_shapes_.push_back(input);
      gathered_inputs_[i] = Tensor(input);
      gathering_buffer_.resize(std::max(gathering_buffer_.size(), ShapeElementCount(input)));
    } else {
      Fail(Concat("input ", i, " of shape ", ShapeToString(input),
                  " does not broadcast to the output shape ", ShapeToString(output)));
    }
  }

  values_.clear();
  steps_.clear();
  temporaries_.clear();
  const int root = Compile(root_);
  if (values_[root].source == Value::Source::kTemporary && values_[root].shape == output_sample) {
    values_[root].source = Value::Source::kOutput;  // the last step writes the output directly
    output_value_ = root;
  } else {
    // A bare input or constant, or a result that still has to broadcast: copy it into the output.
    Value result;
    result.source = Value::Source::kOutput;
    result.shape = output_sample;
    values_.push_back(result);
    Step copy;
    copy.function = ExpressionFunction::kIdentity;
    copy.arguments[0] = copy.arguments[1] = root;
    copy.result = output_value_ = static_cast<int>(values_.size()) - 1;
    try {
      copy.walk =
          std::make_unique<BroadcastWalk>(output_sample, std::vector<Shape>{values_[root].shape});
    } catch (const Error& error) {
      Fail(Concat("'", text_, "' gives shape ", ShapeToString(values_[root].shape),
                  " per sample, the graph's output is ", ShapeToString(output)));
    }
    steps_.push_back(std::move(copy));
  }
  for (const Value& value : values_) {
    if (value.source == Value::Source::kTemporary) temporaries_[value.index] = Tensor(value.shape);
  }
}

const float* Expression::Address(int value_id, size_t sample,
                                 const std::vector<const TensorBatch*>& inputs,
                                 const std::vector<TensorBatch*>& outputs) const {
  const Value& value = values_[value_id];
  switch (value.source) {
    case Value::Source::kInput:
      switch (input_modes_[value.index]) {
        case InputMode::kPerSample:
          return (*inputs[value.index])[sample].data();
        case InputMode::kFirstSample:
          return (*inputs[value.index])[0].data();
        case InputMode::kGathered:
          return gathered_inputs_[value.index].data();
      }
      break;
    case Value::Source::kConstant:
      return &value.constant;
    case Value::Source::kTemporary:
      return temporaries_[value.index].data();
    case Value::Source::kOutput:
      return (*outputs[0])[sample].data();
  }
  return nullptr;
}

void Expression::Forward(const std::vector<const TensorBatch*>& inputs,
                         const std::vector<TensorBatch*>& outputs) {
  for (size_t i = 0; i < gathered_inputs_.size(); ++i) {
    if (input_modes_[i] != InputMode::kGathered) continue;
    // The input's samples, one after another in row-major order, are one tensor of its full shape.
    float* position = gathering_buffer_.data();
    for (const Tensor& sample : *inputs[i]) {
      sample.CopyToRowMajor(position);
      position += sample.size();
    }
    gathered_inputs_[i].CopyFromRowMajor(gathering_buffer_.data());
  }
  for (size_t sample = 0; sample < outputs[0]->size(); ++sample) {
    for (const Step& step : steps_) {
      float* result = step.result == output_value_
                          ? (*outputs[0])[sample].data()
                          : temporaries_[values_[step.result].index].data();
      const float* first = Address(step.arguments[0], sample, inputs, outputs);
      const float* second = Address(step.arguments[1], sample, inputs, outputs);
      const Loop loop = LoopFor(step.function);
      const BroadcastWalk& walk = *step.walk;
      walk.ForEachRun([&](const BroadcastWalk::Run& run) {
        loop(result + run.result_offset, first + run.operand_offsets[0], walk.inner_stride(0),
             second + run.operand_offsets[1], walk.inner_stride(1), run.count);
      });
    }
  }
}

LUMEN_REGISTER_LAYER(Expression, "pnnx.Expression");

}  // namespace lumen
