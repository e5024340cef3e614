// nn.RReLU / F.rrelu in evaluation mode: a leaky ReLU whose slope is the middle of [lower, upper].
// Training mode draws a random slope per element, which an inference engine does not reproduce:
// it is refused. The math is the leaky ReLU of math/activation.hpp.
#include "layer/activation/activation_layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// The fixed slope (lower + upper) / 2 (PyTorch's defaults 1/8 and 1/3), after refusing training.
Activation RreluActivation(const LayerConfig& config) {
  if (config.HasParam("training") && config.BoolParam("training")) {
    throw Error(Concat(config.Describe(),
                       ": training=True draws a random slope for every element; only evaluation "
                       "mode (a fixed slope) is supported"));
  }
  const float lower = config.FloatParam("lower", 1.0f / 8.0f);
  const float upper = config.FloatParam("upper", 1.0f / 3.0f);
  return {Activation::Kind::kLeakyRelu, (lower + upper) / 2.0f};
}

// Builds the layer from lower and upper.
class Rrelu : public ActivationLayer {
 public:
  explicit Rrelu(const LayerConfig& config) : ActivationLayer(config, RreluActivation(config)) {}
};

}  // namespace

LUMEN_REGISTER_LAYER(Rrelu, "nn.RReLU", "F.rrelu", "torch.rrelu");

}  // namespace lumen
