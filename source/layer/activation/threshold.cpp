// nn.Threshold / F.threshold: x where x > threshold, value elsewhere. The math lives in
// math/activation.hpp.
#include "layer/activation/activation_layer.hpp"
#include "layer/layer_registry.hpp"

namespace lumen {
namespace {

// Builds the layer from threshold and value, which PyTorch requires (no defaults).
class Threshold : public ActivationLayer {
 public:
  explicit Threshold(const LayerConfig& config)
      : ActivationLayer(config, {Activation::Kind::kThreshold, config.FloatParam("threshold"),
                                 config.FloatParam("value")}) {}
};

}  // namespace

LUMEN_REGISTER_LAYER(Threshold, "nn.Threshold", "F.threshold", "torch.threshold");

}  // namespace lumen
