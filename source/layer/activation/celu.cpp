// nn.CELU / F.celu: x for x > 0, alpha * (exp(x / alpha) - 1) otherwise. The math lives in
// math/activation.hpp.
#include "layer/activation/activation_layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// PyTorch refuses an alpha of 0: CELU divides the input by it.
bool AlphaAllowed(float alpha) { return alpha != 0.0f; }

// Builds the layer from alpha (PyTorch's default 1.0).
class Celu : public ActivationLayer {
 public:
  explicit Celu(const LayerConfig& config)
      : ActivationLayer(config, {Activation::Kind::kCelu,
                                 CheckedActivationParam(config, "alpha", 1.0f, AlphaAllowed,
                                                        "must not be 0")}) {}
};

}  // namespace

LUMEN_REGISTER_LAYER(Celu, "nn.CELU", "F.celu", "torch.celu");

}  // namespace lumen
