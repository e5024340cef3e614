// nn.Tanh and its functional forms.
// The layer is the shared ActivationLayer; the math lives in math/activation.hpp so that layers
// which fuse an activation (a convolution followed by this op) compute exactly the same thing.
#include "layer/activation/activation_layer.hpp"

namespace lumen {

LUMEN_REGISTER_ACTIVATION(kTanh, "nn.Tanh", "F.tanh", "torch.tanh", "Tensor.tanh");

}  // namespace lumen
