// nn.AvgPool2d and nn.AvgPool1d: the mean over each sliding window.
#include "kernel/average_pooling.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "layer/pooling/pooling_layer.hpp"
#include "layer/window.hpp"
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
  bool one_dimensional_ = false;  // nn.AvgPool1d / F.avg_pool1d
  Window2d window_;
  bool ceil_mode_ = false;
  AverageDivisor divisor_;  // count_include_pad, divisor_override
};

AveragePooling::AveragePooling(const LayerConfig& config)
    : Layer(config),
      one_dimensional_(config.type() == "nn.AvgPool1d" || config.type() == "F.avg_pool1d"),
      window_(one_dimensional_ ? ReadWindow1d(config, /*stride_defaults_to_kernel=*/true)
                               : ReadWindow2d(config, /*stride_defaults_to_kernel=*/true)),
      ceil_mode_(config.BoolParam("ceil_mode", false)) {
  divisor_.count_include_pad = config.BoolParam("count_include_pad", true);
  if (config.HasParam("divisor_override") && !config.Param("divisor_override").IsNone()) {
    divisor_.divisor_override = config.IntParam("divisor_override");
    if (divisor_.divisor_override <= 0) Fail("divisor_override must be positive");
  }
  if (window_.dilation_h != 1 || window_.dilation_w != 1) Fail("dilation is not supported");
  // PyTorch's own check; it also guarantees that every window holds an input value.
  if (int64_t{window_.pad_top} * 2 > window_.kernel_h ||
      int64_t{window_.pad_bottom} * 2 > window_.kernel_h ||
      int64_t{window_.pad_left} * 2 > window_.kernel_w ||
      int64_t{window_.pad_right} * 2 > window_.kernel_w) {
    Fail("padding must be at most half the kernel size (as PyTorch requires)");
  }
}

std::vector<Shape> AveragePooling::OutputShapes(const std::vector<Shape>& input_shapes) const {
  const PlaneSize plane = FeatureMapPlane(*this, input_shapes, one_dimensional_);
  return {PooledShape(*this, input_shapes[0], window_.OutputHeight(plane.height, ceil_mode_),
                      window_.OutputWidth(plane.width, ceil_mode_))};
}

void AveragePooling::Forward(const std::vector<const Tensor*>& inputs,
                             const std::vector<Tensor*>& outputs,
                             const ForwardContext& context) const {
  const PoolingPlane plane = PlaneOf(*inputs[0], *outputs[0]);
  ForEachPlane(*inputs[0], outputs[0], context.compute.pool,
               [&](const float* input, float* output) {
                 AveragePool(window_, divisor_, plane, input, output);
               });
}

LUMEN_REGISTER_LAYER(AveragePooling, "nn.AvgPool2d", "F.avg_pool2d", "nn.AvgPool1d",
                     "F.avg_pool1d");

}  // namespace lumen
