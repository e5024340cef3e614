// nn.LogSigmoid / F.logsigmoid: log(1 / (1 + exp(-x))). The layer is the shared ActivationLayer;
// the math lives in math/activation.hpp.
#include "layer/activation/activation_layer.hpp"

namespace lumen {

LUMEN_REGISTER_ACTIVATION(kLogSigmoid, "nn.LogSigmoid", "F.logsigmoid");

}  // namespace lumen
