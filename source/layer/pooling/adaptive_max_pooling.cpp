// nn.AdaptiveMaxPool1d/2d/3d / F.adaptive_max_pool1d/2d/3d: max pooling to a fixed output size,
// whatever the input size (the machinery is AdaptivePooling's, layer/pooling/).
#include "layer/layer_registry.hpp"
#include "layer/pooling/pooling_layer.hpp"

namespace lumen {

// The maximum of each adaptive window; NaN wins, as in PyTorch. With return_indices a second
// output holds each maximum's flattened position in its channel.
using AdaptiveMaxPooling = AdaptivePoolingOf</*kMaximum=*/true>;

LUMEN_REGISTER_LAYER(AdaptiveMaxPooling, "nn.AdaptiveMaxPool2d", "F.adaptive_max_pool2d",
                     "nn.AdaptiveMaxPool1d", "F.adaptive_max_pool1d", "nn.AdaptiveMaxPool3d",
                     "F.adaptive_max_pool3d");

}  // namespace lumen
