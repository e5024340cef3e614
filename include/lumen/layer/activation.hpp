// Pointwise activation functions, shared by the activation layers and by layers that apply an
// activation to their own output (a convolution followed by a ReLU, for instance).
#ifndef LUMEN_LAYER_ACTIVATION_HPP_
#define LUMEN_LAYER_ACTIVATION_HPP_

#include <cstddef>

#include "lumen/layer/layer.hpp"
#include "lumen/layer/layer_registry.hpp"

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
