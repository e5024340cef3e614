// nn.CELU / F.celu: x for x > 0, alpha * (exp(x / alpha) - 1) otherwise. The math lives in
// math/activation.hpp.
#include "layer/activation/activation_layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// alpha (PyTorch's default 1.0), which PyTorch refuses to be 0: it divides the input.
float CeluAlpha(const LayerConfig& config) {
  const float alpha = config.FloatParam("alpha", 1.0f);
  if (alpha == 0.0f) throw Error(Concat(config.Describe(), ": alpha must not be 0 for CELU"));
  return alpha;
}

// Builds the layer from alpha.
class Celu : public ActivationLayer {
 public:
  explicit Celu(const LayerConfig& config)
      : ActivationLayer(config, {Activation::Kind::kCelu, CeluAlpha(config)}) {}
};

}  // namespace

LUMEN_REGISTER_LAYER(Celu, "nn.CELU", "F.celu", "torch.celu");

}  // namespace lumen
