// nn.SiLU (swish) and its functional form: x * sigmoid(x).
// The layer is the shared ActivationLayer; the math lives in math/activation.hpp so that layers
// which fuse an activation (a convolution followed by this op) compute exactly the same thing.
#include "layer/activation/activation_layer.hpp"

namespace lumen {

LUMEN_REGISTER_ACTIVATION(kSilu, "nn.SiLU", "F.silu");

}  // namespace lumen
