// nn.Threshold / F.threshold: x where x > threshold, value elsewhere. The math lives in
// math/activation.hpp.
#include "layer/activation/activation_layer.hpp"

namespace lumen {

LUMEN_REGISTER_ACTIVATION(kThreshold, "nn.Threshold", "F.threshold", "torch.threshold");

}  // namespace lumen
