// torch.clamp / Tensor.clamp (and their alias clip): min(max(x, min), max), where a None bound is
// open (+-inf); NaN stays NaN, and min > max gives max everywhere, as in PyTorch. The math is the
// clamp of math/activation.hpp, shared with nn.Hardtanh and with fused activations.
#include <limits>

#include "layer/activation/activation_layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// A bound: its value, or `open` when it is None or absent. Tensor bounds (operands) are refused.
float Bound(const LayerConfig& config, const std::string& key, float open) {
  if (config.InputIndexOfRole(key) >= 0) {
    throw Error(
        Concat(config.Describe(), ": a tensor '", key, "' bound is not supported, only numbers"));
  }
  if (!config.HasParam(key) || config.Param(key).IsNone()) return open;
  return config.FloatParam(key);
}

// The clamp activation for min and max; at least one must be given, as PyTorch requires.
Activation ClampActivation(const LayerConfig& config) {
  constexpr float kInfinity = std::numeric_limits<float>::infinity();
  const float minimum = Bound(config, "min", -kInfinity);
  const float maximum = Bound(config, "max", kInfinity);
  const bool no_min = !config.HasParam("min") || config.Param("min").IsNone();
  const bool no_max = !config.HasParam("max") || config.Param("max").IsNone();
  if (no_min && no_max) {
    throw Error(Concat(config.Describe(), ": at least one of min and max must not be None"));
  }
  return {Activation::Kind::kClamp, minimum, maximum};
}

// Builds the layer from min and max.
class Clamp : public ActivationLayer {
 public:
  explicit Clamp(const LayerConfig& config) : ActivationLayer(config, ClampActivation(config)) {}
};

}  // namespace

LUMEN_REGISTER_LAYER(Clamp, "torch.clamp", "Tensor.clamp", "torch.clip", "Tensor.clip");

}  // namespace lumen
