// nn.GELU / F.gelu: x * Phi(x), exactly through erf, or with approximate='tanh'
// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))). The layer is the shared ActivationLayer;
// the math lives in math/activation.hpp, so a GELU fused into the layer before computes the same.
#include "layer/activation/activation_layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// The activation for `approximate` ('none', PyTorch's default, or 'tanh').
Activation GeluActivation(const LayerConfig& config) {
  const std::string approximate = config.StringParam("approximate", "none");
  if (approximate == "none") return {Activation::Kind::kGelu};
  if (approximate == "tanh") return {Activation::Kind::kGeluTanh};
  throw Error(
      Concat(config.Describe(), ": approximate must be 'none' or 'tanh', got '", approximate, "'"));
}

// Builds the layer from approximate.
class Gelu : public ActivationLayer {
 public:
  explicit Gelu(const LayerConfig& config) : ActivationLayer(config, GeluActivation(config)) {}
};

}  // namespace

LUMEN_REGISTER_LAYER(Gelu, "nn.GELU", "F.gelu");

}  // namespace lumen
