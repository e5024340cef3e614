// nn.CELU / F.celu: x for x > 0, alpha * (exp(x / alpha) - 1) otherwise. The math lives in
// math/activation.hpp.
#include "layer/activation/activation_layer.hpp"

namespace lumen {

LUMEN_REGISTER_ACTIVATION(kCelu, "nn.CELU", "F.celu", "torch.celu");

}  // namespace lumen
