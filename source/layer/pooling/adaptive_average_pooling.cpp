// nn.AdaptiveAvgPool1d/2d/3d / F.adaptive_avg_pool1d/2d/3d: average pooling to a fixed output
// size, whatever the input size.
#include <memory>
#include <vector>

#include "kernel/adaptive_pooling.hpp"
#include "kernel/volume_pooling.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "layer/pooling/pooling_layer.hpp"

namespace lumen {

// Output cell (i, j) averages input rows [floor(i*H/OH), ceil((i+1)*H/OH)) and the same for
// columns (kernel/adaptive_pooling.hpp), and depth slices likewise, over every channel of a 1-D,
// 2-D or 3-D feature map, batched or not.
class AdaptiveAveragePooling : public Layer {
 public:
  // Reads output_size (a tuple, an int, or None entries meaning "keep the input size").
  explicit AdaptiveAveragePooling(const LayerConfig& config)
      : Layer(config),
        dimensions_(PooledDimensions(config.type())),
        requested_(ReadAdaptiveOutputSize(config, dimensions_)) {}

  // The input resized to output_size (None entries resolved against the input).
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override {
    return {AdaptivePooledShape(*this, input_shapes, requested_, dimensions_)};
  }

  // Reserves the depth pass's scratch.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override {
    if (context.workspace != nullptr) {
      context.workspace->Reserve(
          ScratchSlot::kFirst,
          VolumeScratchSize(VolumeOf(input_shapes[0], output_shapes[0], dimensions_)));
    }
    return nullptr;
  }

  // Averages each output cell's window of every depth slice, then across depth.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override {
    const PoolingVolume volume = VolumeOf(inputs[0]->shape(), outputs[0]->shape(), dimensions_);
    ForEachVolume(*inputs[0], outputs[0], volume, context.compute.pool,
                  [&](const float* input, float* output) {
                    AdaptivePoolVolume(
                        volume, /*maximum=*/false, input, output,
                        context.compute.Scratch(ScratchSlot::kFirst, VolumeScratchSize(volume)));
                  });
  }

 private:
  int dimensions_;            // 1, 2 or 3
  FeatureMapSize requested_;  // 0 (None): same as the input
};

LUMEN_REGISTER_LAYER(AdaptiveAveragePooling, "nn.AdaptiveAvgPool2d", "F.adaptive_avg_pool2d",
                     "nn.AdaptiveAvgPool1d", "F.adaptive_avg_pool1d", "nn.AdaptiveAvgPool3d",
                     "F.adaptive_avg_pool3d");

}  // namespace lumen
