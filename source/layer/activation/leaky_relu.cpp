// nn.LeakyReLU: x for x > 0, negative_slope * x otherwise. The math lives in math/activation.hpp.
#include "layer/activation/activation_layer.hpp"

namespace lumen {

LUMEN_REGISTER_ACTIVATION(kLeakyRelu, "nn.LeakyReLU", "F.leaky_relu");

}  // namespace lumen
