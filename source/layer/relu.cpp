// nn.ReLU and its functional forms: max(x, 0). The math lives in activation.cpp, shared with the
// layers that fuse an activation.
#include "lumen/layer/activation.hpp"
#include "lumen/layer/layer_registry.hpp"

namespace lumen {
namespace {

// Builds the ReLU layer; the op has no parameters.
class Relu : public ActivationLayer {
 public:
  explicit Relu(const RuntimeOperator& op) : ActivationLayer(op, {Activation::Kind::kRelu}) {}
};

LUMEN_REGISTER_LAYER(Relu, "nn.ReLU", "F.relu", "torch.relu", "Tensor.relu");

}  // namespace
}  // namespace lumen
