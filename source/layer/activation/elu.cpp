// nn.ELU: x for x > 0, alpha * (exp(x) - 1) otherwise. The math lives in math/activation.hpp.
#include "layer/activation/activation_layer.hpp"

namespace lumen {

LUMEN_REGISTER_ACTIVATION(kElu, "nn.ELU", "F.elu");

}  // namespace lumen
