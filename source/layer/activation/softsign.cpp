// nn.Softsign / F.softsign: x / (1 + |x|). The layer is the shared ActivationLayer; the math
// lives in math/activation.hpp.
#include "layer/activation/activation_layer.hpp"

namespace lumen {

LUMEN_REGISTER_ACTIVATION(kSoftsign, "nn.Softsign", "F.softsign");

}  // namespace lumen
