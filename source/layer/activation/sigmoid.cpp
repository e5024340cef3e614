// nn.Sigmoid and its functional forms: 1 / (1 + exp(-x)).
// The layer is the shared ActivationLayer; the math lives in math/activation.hpp so that layers
// which fuse an activation (a convolution followed by this op) compute exactly the same thing.
#include "layer/activation/activation_layer.hpp"

namespace lumen {

LUMEN_REGISTER_ACTIVATION(kSigmoid, "nn.Sigmoid", "F.sigmoid", "torch.sigmoid", "Tensor.sigmoid");

}  // namespace lumen
