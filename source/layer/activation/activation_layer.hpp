// ActivationLayer: the layer of every op that applies one pointwise function to its input
// (nn.ReLU, nn.SiLU, nn.GELU, ...). The math is in math/activation.hpp, shared with the kernels
// that apply an activation to their own output, so a fused activation computes exactly the same.
#ifndef LUMEN_LAYER_ACTIVATION_ACTIVATION_LAYER_HPP_
#define LUMEN_LAYER_ACTIVATION_ACTIVATION_LAYER_HPP_

#include <optional>

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

// Where the fields of a parameterised activation come from: PyTorch's parameter names and
// defaults (none: PyTorch requires the parameter). The one place that says which PyTorch
// parameter each Activation field holds (math/activation.hpp).
struct ActivationParameters {
  Activation::Kind kind;
  const char* alpha;  // the parameter alpha holds, or null
  std::optional<float> alpha_default;
  const char* beta;  // the parameter beta holds, or null
  std::optional<float> beta_default;
};
inline const ActivationParameters kActivationParameters[] = {
    {Activation::Kind::kLeakyRelu, "negative_slope", 0.01f, nullptr, std::nullopt},
    {Activation::Kind::kElu, "alpha", 1.0f, nullptr, std::nullopt},
    {Activation::Kind::kCelu, "alpha", 1.0f, nullptr, std::nullopt},
    {Activation::Kind::kClamp, "min_val", -1.0f, "max_val", 1.0f},  // nn.Hardtanh
    {Activation::Kind::kSoftplus, "beta", 1.0f, "threshold", 20.0f},
    {Activation::Kind::kHardshrink, "lambd", 0.5f, nullptr, std::nullopt},
    {Activation::Kind::kSoftshrink, "lambd", 0.5f, nullptr, std::nullopt},
    {Activation::Kind::kThreshold, "threshold", std::nullopt, "value", std::nullopt},
};

// The activation `kind` with its parameters read from `config` as kActivationParameters says
// (none for a kind it does not list), after PyTorch's own checks of them.
inline Activation ReadActivation(const LayerConfig& config, Activation::Kind kind) {
  const auto read = [&config](const char* key, std::optional<float> fallback) {
    return fallback ? config.FloatParam(key, *fallback) : config.FloatParam(key);
  };
  Activation activation{kind};
  for (const ActivationParameters& parameters : kActivationParameters) {
    if (parameters.kind != kind) continue;
    if (parameters.alpha) activation.alpha = read(parameters.alpha, parameters.alpha_default);
    if (parameters.beta) activation.beta = read(parameters.beta, parameters.beta_default);
  }
  // CELU divides by alpha; PyTorch refuses a negative (or NaN) lambd for Softshrink.
  if (kind == Activation::Kind::kCelu && activation.alpha == 0.0f) {
    throw Error(Concat(config.Describe(), ": alpha must not be 0 for CELU"));
  }
  if (kind == Activation::Kind::kSoftshrink && !(activation.alpha >= 0.0f)) {
    throw Error(Concat(config.Describe(), ": lambd must be at least 0, got ", activation.alpha));
  }
  return activation;
}

}  // namespace lumen

// Defines RegisterLayer_<KIND>(), registering op types whose layer applies the activation
// Activation::Kind::KIND, its parameters read by ReadActivation. Use it inside namespace lumen.
#define LUMEN_REGISTER_ACTIVATION(KIND, ...)                                                       \
  void RegisterLayer_##KIND() {                                                                    \
    ::lumen::LayerRegistry::Register(                                                              \
        {__VA_ARGS__}, [](const ::lumen::LayerConfig& config) -> std::unique_ptr<::lumen::Layer> { \
          return std::make_unique<::lumen::ActivationLayer>(                                       \
              config, ::lumen::ReadActivation(config, ::lumen::Activation::Kind::KIND));           \
        });                                                                                        \
  }                                                                                                \
  static_assert(true, "the macro is used as a statement: LUMEN_REGISTER_ACTIVATION(...);")

#endif  // LUMEN_LAYER_ACTIVATION_ACTIVATION_LAYER_HPP_
