// nn.Mish / F.mish: x * tanh(softplus(x)).
// The layer is the shared ActivationLayer; the math lives in math/activation.hpp so that layers
// which fuse an activation compute exactly the same thing.
#include "layer/activation/activation_layer.hpp"

namespace lumen {

LUMEN_REGISTER_ACTIVATION(kMish, "nn.Mish", "F.mish");

}  // namespace lumen
