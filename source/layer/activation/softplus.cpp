// nn.Softplus / F.softplus: log(1 + exp(beta * x)) / beta, or x itself where beta * x > threshold
// (PyTorch's defaults beta=1, threshold=20). The math lives in math/activation.hpp.
#include "layer/activation/activation_layer.hpp"
#include "layer/layer_registry.hpp"

namespace lumen {
namespace {

// Builds the layer from beta and threshold.
class Softplus : public ActivationLayer {
 public:
  explicit Softplus(const LayerConfig& config)
      : ActivationLayer(config, {Activation::Kind::kSoftplus, config.FloatParam("beta", 1.0f),
                                 config.FloatParam("threshold", 20.0f)}) {}
};

}  // namespace

LUMEN_REGISTER_LAYER(Softplus, "nn.Softplus", "F.softplus");

}  // namespace lumen
