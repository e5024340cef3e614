// nn.Tanhshrink / F.tanhshrink: x - tanh(x). The layer is the shared ActivationLayer; the math
// lives in math/activation.hpp.
#include "layer/activation/activation_layer.hpp"

namespace lumen {

LUMEN_REGISTER_ACTIVATION(kTanhshrink, "nn.Tanhshrink", "F.tanhshrink");

}  // namespace lumen
