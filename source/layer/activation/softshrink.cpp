// nn.Softshrink / F.softshrink: x moved toward 0 by lambd, and 0 within [-lambd, lambd]. The math
// lives in math/activation.hpp.
#include "layer/activation/activation_layer.hpp"

namespace lumen {

LUMEN_REGISTER_ACTIVATION(kSoftshrink, "nn.Softshrink", "F.softshrink");

}  // namespace lumen
