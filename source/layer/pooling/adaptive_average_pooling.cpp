// nn.AdaptiveAvgPool1d/2d/3d / F.adaptive_avg_pool1d/2d/3d: average pooling to a fixed output
// size, whatever the input size (the machinery is AdaptivePooling's, layer/pooling/).
#include "layer/layer_registry.hpp"
#include "layer/pooling/pooling_layer.hpp"

namespace lumen {

// The average of each adaptive window.
class AdaptiveAveragePooling : public AdaptivePooling {
 public:
  // Reads output_size.
  explicit AdaptiveAveragePooling(const LayerConfig& config)
      : AdaptivePooling(config, /*maximum=*/false) {}
};

LUMEN_REGISTER_LAYER(AdaptiveAveragePooling, "nn.AdaptiveAvgPool2d", "F.adaptive_avg_pool2d",
                     "nn.AdaptiveAvgPool1d", "F.adaptive_avg_pool1d", "nn.AdaptiveAvgPool3d",
                     "F.adaptive_avg_pool3d");

}  // namespace lumen
