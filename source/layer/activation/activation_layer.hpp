// ActivationLayer: the layer of every op that applies one pointwise function to its input
// (nn.ReLU, nn.SiLU, nn.GELU, ...). The math is in math/activation.hpp, shared with the kernels
// that apply an activation to their own output, so a fused activation computes exactly the same.
#ifndef LUMEN_LAYER_ACTIVATION_ACTIVATION_LAYER_HPP_
#define LUMEN_LAYER_ACTIVATION_ACTIVATION_LAYER_HPP_

#include <string>

#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "math/activation.hpp"

namespace lumen {

// A layer that applies one activation to every element of its single input.
class ActivationLayer : public Layer {
 public:
  // Builds the layer for `config`, applying `activation`.
  ActivationLayer(const LayerConfig& config, const Activation& activation)
      : Layer(config), activation_(activation) {}
  // One input; the output has its shape.
  Shapes OutputShapes(const Shapes&) const override;
  // Applies the activation to every element.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;
  // The function this layer applies: the graph offers it to the layer before, to fuse.
  const Activation* ElementwiseActivation() const override { return &activation_; }

 private:
  Activation activation_;
};

// An activation's float parameter `key` (PyTorch's default `fallback` when absent), which must
// pass PyTorch's own check `allowed`; otherwise an error naming the operator says "<key>
// <requirement>, got <value>".
inline float CheckedActivationParam(const LayerConfig& config, const std::string& key,
                                    float fallback, bool (*allowed)(float),
                                    const std::string& requirement) {
  const float value = config.FloatParam(key, fallback);
  if (!allowed(value)) {
    throw Error(Concat(config.Describe(), ": ", key, " ", requirement, ", got ", value));
  }
  return value;
}

}  // namespace lumen

// Defines RegisterLayer_<KIND>(), registering op types whose layer applies the parameterless
// activation Activation::Kind::KIND. Use it inside namespace lumen.
#define LUMEN_REGISTER_ACTIVATION(KIND, ...)                                                       \
  void RegisterLayer_##KIND() {                                                                    \
    ::lumen::LayerRegistry::Register(                                                              \
        {__VA_ARGS__}, [](const ::lumen::LayerConfig& config) -> std::unique_ptr<::lumen::Layer> { \
          return std::make_unique<::lumen::ActivationLayer>(                                       \
              config, ::lumen::Activation{::lumen::Activation::Kind::KIND});                       \
        });                                                                                        \
  }                                                                                                \
  static_assert(true, "the macro is used as a statement: LUMEN_REGISTER_ACTIVATION(...);")

#endif  // LUMEN_LAYER_ACTIVATION_ACTIVATION_LAYER_HPP_
