// nn.Softshrink / F.softshrink: x moved toward 0 by lambd, and 0 within [-lambd, lambd]. The math
// lives in math/activation.hpp.
#include "layer/activation/activation_layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// lambd (PyTorch's default 0.5), which PyTorch requires to be non-negative.
float SoftshrinkLambda(const LayerConfig& config) {
  const float lambda = config.FloatParam("lambd", 0.5f);
  if (!(lambda >= 0.0f)) {
    throw Error(Concat(config.Describe(), ": lambd must be at least 0, got ", lambda));
  }
  return lambda;
}

// Builds the layer from lambd.
class Softshrink : public ActivationLayer {
 public:
  explicit Softshrink(const LayerConfig& config)
      : ActivationLayer(config, {Activation::Kind::kSoftshrink, SoftshrinkLambda(config)}) {}
};

}  // namespace

LUMEN_REGISTER_LAYER(Softshrink, "nn.Softshrink", "F.softshrink");

}  // namespace lumen
