// nn.Hardtanh / F.hardtanh: x clamped to [min_val, max_val] (PyTorch's defaults -1 and 1). The math
// is the clamp of math/activation.hpp, shared with torch.clamp and with fused activations.
#include "layer/activation/activation_layer.hpp"

namespace lumen {

LUMEN_REGISTER_ACTIVATION(kClamp, "nn.Hardtanh", "F.hardtanh");

}  // namespace lumen
