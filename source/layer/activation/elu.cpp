// nn.ELU: x for x > 0, alpha * (exp(x) - 1) otherwise. The math lives in math/activation.hpp.
#include "layer/activation/activation_layer.hpp"
#include "layer/layer_registry.hpp"

namespace lumen {
namespace {

// Builds the layer from alpha (PyTorch's default 1.0 when absent).
class Elu : public ActivationLayer {
 public:
  explicit Elu(const LayerConfig& op)
      : ActivationLayer(op, {Activation::Kind::kElu, op.FloatParam("alpha", 1.0f)}) {}
};

}  // namespace

LUMEN_REGISTER_LAYER(Elu, "nn.ELU", "F.elu");
}  // namespace lumen
