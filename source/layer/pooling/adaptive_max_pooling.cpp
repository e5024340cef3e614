// nn.AdaptiveMaxPool2d / F.adaptive_max_pool2d: max pooling to a fixed output size, whatever the
// input size.
#include <vector>

#include "kernel/adaptive_pooling.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "layer/pooling/pooling_layer.hpp"

namespace lumen {

// Output cell (i, j) is the maximum of input rows [floor(i*H/OH), ceil((i+1)*H/OH)) and the same
// columns (the windows of nn.AdaptiveAvgPool2d, which may overlap), over every plane of a (C,H,W)
// or (N,C,H,W) input. NaN wins, as in PyTorch.
class AdaptiveMaxPooling : public Layer {
 public:
  // Reads output_size (a pair, an int, or None entries meaning "keep the input size");
  // return_indices must be False.
  explicit AdaptiveMaxPooling(const LayerConfig& config)
      : Layer(config), requested_(ReadAdaptiveOutputSize(config)) {
    if (config.BoolParam("return_indices", false)) Fail("return_indices=True is not supported");
  }

  // The input with its plane resized to output_size (None entries resolved against the input).
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override {
    return {AdaptivePooledShape(*this, input_shapes, requested_)};
  }

  // Takes the maximum of each output cell's window of every plane.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override {
    const PoolingPlane plane = PlaneOf(*inputs[0], *outputs[0]);
    ForEachPlane(*inputs[0], outputs[0], context.compute.pool,
                 [&](const float* input, float* output) { AdaptiveMaxPool(plane, input, output); });
  }

 private:
  PlaneSize requested_;  // 0 (None): same as the input
};

LUMEN_REGISTER_LAYER(AdaptiveMaxPooling, "nn.AdaptiveMaxPool2d", "F.adaptive_max_pool2d");

}  // namespace lumen
