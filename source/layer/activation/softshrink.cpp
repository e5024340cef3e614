// nn.Softshrink / F.softshrink: x moved toward 0 by lambd, and 0 within [-lambd, lambd]. The math
// lives in math/activation.hpp.
#include "layer/activation/activation_layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// PyTorch requires lambd to be non-negative (NaN is not).
bool LambdaAllowed(float lambda) { return lambda >= 0.0f; }

// Builds the layer from lambd (PyTorch's default 0.5).
class Softshrink : public ActivationLayer {
 public:
  explicit Softshrink(const LayerConfig& config)
      : ActivationLayer(config, {Activation::Kind::kSoftshrink,
                                 CheckedActivationParam(config, "lambd", 0.5f, LambdaAllowed,
                                                        "must be at least 0")}) {}
};

}  // namespace

LUMEN_REGISTER_LAYER(Softshrink, "nn.Softshrink", "F.softshrink");

}  // namespace lumen
