#include "lumen/layer/activation.hpp"

#include <algorithm>
#include <cmath>

#include "lumen/base/error.hpp"
#include "lumen/math/fast_exp.hpp"

namespace lumen {
namespace {

// Below this many elements a parallel region costs more than it saves.
constexpr size_t kParallelThreshold = 1 << 14;

// Calls body(f) with the activation as a plain function object, so that every caller's loop is
// compiled (and vectorised) once per activation. This switch is the one place the math lives; the
// formulas follow PyTorch's CPU kernels so that results round the same way.
template <typename Body>
void WithFunction(const Activation& activation, Body body) {
  const float alpha = activation.alpha;
  switch (activation.kind) {
    case Activation::Kind::kIdentity:
      body([](float x) { return x; });
      break;
    case Activation::Kind::kRelu:
      body([](float x) { return std::max(x, 0.0f); });
      break;
    case Activation::Kind::kRelu6:
      body([](float x) { return std::min(std::max(x, 0.0f), 6.0f); });
      break;
    case Activation::Kind::kLeakyRelu:
      body([alpha](float x) { return x > 0.0f ? x : x * alpha; });
      break;
    case Activation::Kind::kElu:
      body([alpha](float x) { return x > 0.0f ? x : alpha * std::expm1(x); });
      break;
    case Activation::Kind::kSigmoid:
      body([](float x) { return 1.0f / (1.0f + FastExp(-x)); });
      break;
    case Activation::Kind::kSilu:
      body([](float x) { return x / (1.0f + FastExp(-x)); });
      break;
    case Activation::Kind::kTanh:
      body([](float x) { return std::tanh(x); });
      break;
    case Activation::Kind::kHardswish:
      body([](float x) { return x * std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f; });
      break;
    case Activation::Kind::kHardsigmoid:
      body([](float x) { return std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f; });
      break;
  }
}

}  // namespace

void ApplyActivation(const Activation& activation, const float* input, float* output,
                     size_t count) {
  WithFunction(activation, [&](auto function) {
    const auto total = static_cast<std::ptrdiff_t>(count);
#pragma omp parallel for if (count >= kParallelThreshold) schedule(static)
    for (std::ptrdiff_t i = 0; i < total; ++i) output[i] = function(input[i]);
  });
}

void AddBiasAndActivate(const Activation& activation, float bias, float* values, size_t count) {
  WithFunction(activation, [&](auto function) {
    for (size_t i = 0; i < count; ++i) values[i] = function(values[i] + bias);
  });
}

void ActivationLayer::Prepare(const std::vector<Shape>& input_shapes,
                              const std::vector<Shape>& output_shapes) {
  CheckArity(input_shapes, output_shapes, 1, 1);
  if (input_shapes[0] != output_shapes[0]) {
    Fail(Concat("input shape ", ShapeToString(input_shapes[0]), " differs from output shape ",
                ShapeToString(output_shapes[0])));
  }
}

void ActivationLayer::Forward(const std::vector<const TensorBatch*>& inputs,
                              const std::vector<TensorBatch*>& outputs) {
  const TensorBatch& input = *inputs[0];
  TensorBatch& output = *outputs[0];
  for (size_t sample = 0; sample < input.size(); ++sample) {
    ApplyActivation(activation_, input[sample].data(), output[sample].data(), input[sample].size());
  }
}

}  // namespace lumen
