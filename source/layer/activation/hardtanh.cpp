// nn.Hardtanh / F.hardtanh: x clamped to [min_val, max_val] (PyTorch's defaults -1 and 1). The math
// is the clamp of math/activation.hpp, shared with torch.clamp and with fused activations.
#include "layer/activation/activation_layer.hpp"
#include "layer/layer_registry.hpp"

namespace lumen {
namespace {

// Builds the layer from min_val and max_val.
class Hardtanh : public ActivationLayer {
 public:
  explicit Hardtanh(const LayerConfig& config)
      : ActivationLayer(config, {Activation::Kind::kClamp, config.FloatParam("min_val", -1.0f),
                                 config.FloatParam("max_val", 1.0f)}) {}
};

}  // namespace

LUMEN_REGISTER_LAYER(Hardtanh, "nn.Hardtanh", "F.hardtanh");

}  // namespace lumen
