// nn.Hardshrink / F.hardshrink: 0 for x in [-lambd, lambd], x elsewhere. The math lives in
// math/activation.hpp.
#include "layer/activation/activation_layer.hpp"

namespace lumen {

LUMEN_REGISTER_ACTIVATION(kHardshrink, "nn.Hardshrink", "F.hardshrink", "torch.hardshrink",
                          "Tensor.hardshrink");

}  // namespace lumen
