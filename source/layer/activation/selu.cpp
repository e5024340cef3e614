// nn.SELU / F.selu: scale * (x for x > 0, alpha * (exp(x) - 1) otherwise), with PyTorch's fixed
// alpha and scale. The layer is the shared ActivationLayer; the math lives in
// math/activation.hpp.
#include "layer/activation/activation_layer.hpp"

namespace lumen {

LUMEN_REGISTER_ACTIVATION(kSelu, "nn.SELU", "F.selu", "torch.selu");

}  // namespace lumen
