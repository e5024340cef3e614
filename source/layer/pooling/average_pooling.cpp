// nn.AvgPool2d and nn.AvgPool1d: the mean over each sliding window.
#include "kernel/average_pooling.hpp"

#include <vector>

#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "layer/pooling/pooling_layer.hpp"
#include "lumen/error.hpp"
#include "math/window.hpp"

namespace lumen {

// Average pooling with stride, padding, ceil_mode, count_include_pad and divisor_override, over
// every plane of a (C,H,W) or (N,C,H,W) input. The 1-D form pools a (C,L) or (N,C,L) input along
// L: each sample's C x L plane with a window of height 1.
class AveragePooling : public Layer {
 public:
  // Reads the nn.AvgPool2d parameters.
  explicit AveragePooling(const LayerConfig& config);
  // The input with its plane pooled (PyTorch's size formula, computed in 64 bits).
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Averages every window of every plane.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  SlidingWindow sliding_;   // the window, ceil_mode, 1-D (nn.AvgPool1d / F.avg_pool1d) or not
  AverageDivisor divisor_;  // count_include_pad, divisor_override
};

AveragePooling::AveragePooling(const LayerConfig& config)
    : Layer(config),
      sliding_(ReadSlidingWindow(
          config, config.type() == "nn.AvgPool1d" || config.type() == "F.avg_pool1d")) {
  divisor_.count_include_pad = config.BoolParam("count_include_pad", true);
  if (config.HasParam("divisor_override") && !config.Param("divisor_override").IsNone()) {
    divisor_.divisor_override = config.IntParam("divisor_override");
    if (divisor_.divisor_override <= 0) Fail("divisor_override must be positive");
  }
  if (sliding_.window.dilation_h != 1 || sliding_.window.dilation_w != 1) {
    Fail("dilation is not supported");
  }
}

std::vector<Shape> AveragePooling::OutputShapes(const std::vector<Shape>& input_shapes) const {
  return {SlidingPooledShape(*this, input_shapes, sliding_)};
}

void AveragePooling::Forward(const std::vector<const Tensor*>& inputs,
                             const std::vector<Tensor*>& outputs,
                             const ForwardContext& context) const {
  const PoolingPlane plane = PlaneOf(*inputs[0], *outputs[0]);
  ForEachPlane(*inputs[0], outputs[0], context.compute.pool,
               [&](const float* input, float* output) {
                 AveragePool(sliding_.window, divisor_, plane, input, output);
               });
}

LUMEN_REGISTER_LAYER(AveragePooling, "nn.AvgPool2d", "F.avg_pool2d", "nn.AvgPool1d",
                     "F.avg_pool1d");

}  // namespace lumen
