// nn.AdaptiveMaxPool1d/2d/3d / F.adaptive_max_pool1d/2d/3d: max pooling to a fixed output size,
// whatever the input size.
#include <memory>
#include <vector>

#include "kernel/adaptive_pooling.hpp"
#include "kernel/volume_pooling.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "layer/pooling/pooling_layer.hpp"

namespace lumen {

// Output cell (i, j) is the maximum of input rows [floor(i*H/OH), ceil((i+1)*H/OH)) and the same
// columns (the windows of nn.AdaptiveAvgPool2d, which may overlap), and depth slices likewise,
// over every channel of a 1-D, 2-D or 3-D feature map, batched or not. NaN wins, as in PyTorch.
// With return_indices a second output holds each maximum's flattened position in its channel.
class AdaptiveMaxPooling : public Layer {
 public:
  // Reads output_size (a tuple, an int, or None entries meaning "keep the input size") and
  // return_indices.
  explicit AdaptiveMaxPooling(const LayerConfig& config)
      : Layer(config),
        dimensions_(PooledDimensions(config.type())),
        requested_(ReadAdaptiveOutputSize(config, dimensions_)),
        return_indices_(config.BoolParam("return_indices", false)) {}

  // The input resized to output_size (None entries resolved against the input), twice with
  // return_indices.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override {
    const Shape output = AdaptivePooledShape(*this, input_shapes, requested_, dimensions_);
    if (return_indices_) return {output, output};
    return {output};
  }

  // Reserves the depth pass's scratch.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override {
    if (context.workspace != nullptr && !return_indices_) {
      context.workspace->Reserve(
          ScratchSlot::kFirst,
          VolumeScratchSize(VolumeOf(input_shapes[0], output_shapes[0], dimensions_)));
    }
    return nullptr;
  }

  // Takes the maximum of each output cell's window of every depth slice, then across depth.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override {
    const PoolingVolume volume = VolumeOf(inputs[0]->shape(), outputs[0]->shape(), dimensions_);
    if (return_indices_) {
      const float* output_start = outputs[0]->data();
      float* indices = outputs[1]->data();
      ForEachVolume(*inputs[0], outputs[0], volume, context.compute.pool,
                    [&](const float* input, float* output) {
                      AdaptiveMaxPoolWithIndices(volume, dimensions_ != 1, input, output,
                                                 indices + (output - output_start));
                    });
      return;
    }
    ForEachVolume(*inputs[0], outputs[0], volume, context.compute.pool,
                  [&](const float* input, float* output) {
                    AdaptivePoolVolume(
                        volume, /*maximum=*/true, input, output,
                        context.compute.Scratch(ScratchSlot::kFirst, VolumeScratchSize(volume)));
                  });
  }

 private:
  int dimensions_;            // 1, 2 or 3
  FeatureMapSize requested_;  // 0 (None): same as the input
  bool return_indices_;
};

LUMEN_REGISTER_LAYER(AdaptiveMaxPooling, "nn.AdaptiveMaxPool2d", "F.adaptive_max_pool2d",
                     "nn.AdaptiveMaxPool1d", "F.adaptive_max_pool1d", "nn.AdaptiveMaxPool3d",
                     "F.adaptive_max_pool3d");

}  // namespace lumen
