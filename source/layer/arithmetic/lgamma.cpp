// torch.lgamma: log|Gamma(x)|, element by element. The layer is the shared ActivationLayer; the
// math lives in math/activation.hpp.
#include "layer/activation/activation_layer.hpp"

namespace lumen {

LUMEN_REGISTER_ACTIVATION(kLgamma, "torch.lgamma", "Tensor.lgamma");

}  // namespace lumen
