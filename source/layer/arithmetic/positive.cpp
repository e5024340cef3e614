// torch.positive: its input unchanged (unary plus). The layer is the shared ActivationLayer with
// the identity.
#include "layer/activation/activation_layer.hpp"

namespace lumen {

LUMEN_REGISTER_ACTIVATION(kIdentity, "torch.positive", "Tensor.positive");

}  // namespace lumen
