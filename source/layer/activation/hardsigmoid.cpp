// nn.Hardsigmoid: relu6(x + 3) / 6.
// The layer is the shared ActivationLayer; the math lives in math/activation.hpp so that layers
// which fuse an activation (a convolution followed by this op) compute exactly the same thing.
#include "layer/activation/activation_layer.hpp"

namespace lumen {

LUMEN_REGISTER_ACTIVATION(kHardsigmoid, "nn.Hardsigmoid", "F.hardsigmoid");

}  // namespace lumen
