// nn.Hardshrink / F.hardshrink: 0 for x in [-lambd, lambd], x elsewhere. The math lives in
// math/activation.hpp.
#include "layer/activation/activation_layer.hpp"
#include "layer/layer_registry.hpp"

namespace lumen {
namespace {

// Builds the layer from lambd (PyTorch's default 0.5).
class Hardshrink : public ActivationLayer {
 public:
  explicit Hardshrink(const LayerConfig& config)
      : ActivationLayer(config, {Activation::Kind::kHardshrink, config.FloatParam("lambd", 0.5f)}) {
  }
};

}  // namespace

LUMEN_REGISTER_LAYER(Hardshrink, "nn.Hardshrink", "F.hardshrink", "torch.hardshrink",
                     "Tensor.hardshrink");

}  // namespace lumen
