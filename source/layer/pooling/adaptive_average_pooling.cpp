// nn.AdaptiveAvgPool2d / F.adaptive_avg_pool2d: average pooling to a fixed output size, whatever
// the input size.
#include <vector>

#include "kernel/adaptive_pooling.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "layer/pooling/pooling_layer.hpp"

namespace lumen {

// Output cell (i, j) averages input rows [floor(i*H/OH), ceil((i+1)*H/OH)) and the same for
// columns (kernel/adaptive_pooling.hpp), over every plane of a (C,H,W) or (N,C,H,W) input.
class AdaptiveAveragePooling : public Layer {
 public:
  // Reads output_size (a pair, an int, or None entries meaning "keep the input size").
  explicit AdaptiveAveragePooling(const LayerConfig& config)
      : Layer(config), requested_(ReadAdaptiveOutputSize(config)) {}

  // The input with its plane resized to output_size (None entries resolved against the input).
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override {
    return {AdaptivePooledShape(*this, input_shapes, requested_)};
  }

  // Averages each output cell's window of every plane.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override {
    const PoolingPlane plane = PlaneOf(*inputs[0], *outputs[0]);
    ForEachPlane(
        *inputs[0], outputs[0], context.compute.pool,
        [&](const float* input, float* output) { AdaptiveAveragePool(plane, input, output); });
  }

 private:
  PlaneSize requested_;  // 0 (None): same as the input
};

LUMEN_REGISTER_LAYER(AdaptiveAveragePooling, "nn.AdaptiveAvgPool2d", "F.adaptive_avg_pool2d");

}  // namespace lumen
