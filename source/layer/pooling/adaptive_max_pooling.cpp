// nn.AdaptiveMaxPool1d/2d/3d / F.adaptive_max_pool1d/2d/3d: max pooling to a fixed output size,
// whatever the input size (the machinery is AdaptivePooling's, layer/pooling/).
#include "kernel/volume_pooling.hpp"
#include "layer/layer_registry.hpp"
#include "layer/pooling/pooling_layer.hpp"

namespace lumen {

// The maximum of each adaptive window; NaN wins, as in PyTorch. With return_indices a second
// output holds each maximum's flattened position in its channel.
class AdaptiveMaxPooling : public AdaptivePooling {
 public:
  // Reads output_size and return_indices.
  explicit AdaptiveMaxPooling(const LayerConfig& config)
      : AdaptivePooling(config, /*maximum=*/true) {}

 protected:
  // The maximum of each window, with its position (a 1-D signal's positions count along L only).
  void PoolChannelWithIndices(const PoolingVolume& volume, const float* input, float* output,
                              float* indices) const override {
    AdaptiveMaxPoolWithIndices(volume, dimensions() != 1, input, output, indices);
  }
};

LUMEN_REGISTER_LAYER(AdaptiveMaxPooling, "nn.AdaptiveMaxPool2d", "F.adaptive_max_pool2d",
                     "nn.AdaptiveMaxPool1d", "F.adaptive_max_pool1d", "nn.AdaptiveMaxPool3d",
                     "F.adaptive_max_pool3d");

}  // namespace lumen
