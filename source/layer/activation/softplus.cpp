// nn.Softplus / F.softplus: log(1 + exp(beta * x)) / beta, or x itself where beta * x > threshold
// (PyTorch's defaults beta=1, threshold=20). The math lives in math/activation.hpp.
#include "layer/activation/activation_layer.hpp"

namespace lumen {

LUMEN_REGISTER_ACTIVATION(kSoftplus, "nn.Softplus", "F.softplus");

}  // namespace lumen
