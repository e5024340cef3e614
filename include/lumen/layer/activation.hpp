// Pointwise activation functions, shared by the activation layers and by layers that apply an
// activation to their own output (a convolution followed by a ReLU, for instance).
#ifndef LUMEN_LAYER_ACTIVATION_HPP_
#define LUMEN_LAYER_ACTIVATION_HPP_

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "lumen/layer/layer.hpp"
#include "lumen/layer/layer_registry.hpp"
#include "lumen/math/fast_exp.hpp"

namespace lumen {

// Which function, plus its parameter where it has one.
struct Activation {
  enum class Kind {
    kIdentity,
    kRelu,
    kRelu6,
    kLeakyRelu,  // alpha = negative_slope
    kElu,        // alpha
    kSigmoid,
    kSilu,
    kTanh,
    kHardswish,
    kHardsigmoid,
  };
  Kind kind = Kind::kIdentity;
  float alpha = 0.0f;
};

// Calls body(f) with the activation as a plain function object (float -> float), so that the
// caller's loop is compiled, and vectorised, once per activation, with f inlined. This switch is
// the one place the math lives; the formulas follow PyTorch's CPU kernels so that results round
// the same way.
template <typename Body>
void WithActivation(const Activation& activation, Body body) {
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

// Computes output[i] = f(input[i]) for `count` elements (input may equal output).
// Runs on the OpenMP thread pool when there is enough work.
void ApplyActivation(const Activation& activation, const float* input, float* output, size_t count);

// Computes values[i] = f(values[i] + bias) for `count` elements on the calling thread: the last
// step of a convolution's output channel, run inside the caller's parallel loop.
void AddBiasAndActivate(const Activation& activation, float bias, float* values, size_t count);

// A layer that applies one activation to every element of its single input.
class ActivationLayer : public Layer {
 public:
  // Builds the layer for `op`, applying `activation`.
  ActivationLayer(const RuntimeOperator& op, const Activation& activation)
      : Layer(op), activation_(activation) {}
  // Checks one input and one output of the same shape.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Applies the activation sample by sample.
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;

  // The function this layer applies (the graph reads it to fuse the layer into a convolution).
  const Activation& activation() const { return activation_; }

 private:
  Activation activation_;
};

}  // namespace lumen

// Registers op types whose layer applies one parameterless activation (Activation::Kind::KIND).
#define LUMEN_REGISTER_ACTIVATION(KIND, ...)                                                     \
  static const bool kLumenRegistered##KIND = ::lumen::LayerRegistry::Register(                   \
      {__VA_ARGS__}, [](const ::lumen::RuntimeOperator& op) -> std::unique_ptr<::lumen::Layer> { \
        return std::make_unique<::lumen::ActivationLayer>(                                       \
            op, ::lumen::Activation{::lumen::Activation::Kind::KIND});                           \
      })

#endif  // LUMEN_LAYER_ACTIVATION_HPP_
