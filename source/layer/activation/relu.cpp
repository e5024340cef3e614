// nn.ReLU and its functional forms: max(x, 0).
// The layer is the shared ActivationLayer; the math lives in math/activation.hpp so that layers
// which fuse an activation (a convolution followed by this op) compute exactly the same thing.
#include "layer/activation/activation_layer.hpp"

namespace lumen {

LUMEN_REGISTER_ACTIVATION(kRelu, "nn.ReLU", "F.relu", "torch.relu", "Tensor.relu");

}  // namespace lumen
