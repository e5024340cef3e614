// nn.LeakyReLU: x for x > 0, negative_slope * x otherwise. The math lives in math/activation.hpp.
#include "layer/activation/activation_layer.hpp"
#include "layer/layer_registry.hpp"

namespace lumen {
namespace {

// Builds the layer from negative_slope (PyTorch's default 0.01 when absent).
class LeakyRelu : public ActivationLayer {
 public:
  explicit LeakyRelu(const LayerConfig& op)
      : ActivationLayer(op,
                        {Activation::Kind::kLeakyRelu, op.FloatParam("negative_slope", 0.01f)}) {}
};

}  // namespace

LUMEN_REGISTER_LAYER(LeakyRelu, "nn.LeakyReLU", "F.leaky_relu");
}  // namespace lumen
