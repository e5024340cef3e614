// nn.AvgPool1d, nn.AvgPool2d and nn.AvgPool3d: the mean over each sliding window.
#include "kernel/average_pooling.hpp"

#include <vector>

#include "kernel/volume_pooling.hpp"
#include "layer/layer_registry.hpp"
#include "layer/pooling/pooling_layer.hpp"
#include "lumen/error.hpp"
#include "math/window.hpp"

namespace lumen {

// Average pooling with stride, padding, ceil_mode, count_include_pad and divisor_override, over
// every channel of a 1-D, 2-D or 3-D feature map, batched or not.
class AveragePooling : public PoolingLayer {
 public:
  // Reads the nn.AvgPool1d/2d/3d parameters.
  explicit AveragePooling(const LayerConfig& config);

 protected:
  // The input pooled (PyTorch's size formula, computed in 64 bits).
  Shape PooledOutput(const std::vector<Shape>& input_shapes) const override {
    return SlidingPooledShape(*this, input_shapes, sliding_);
  }
  // Averages every window of every depth slice, then across depth.
  void PoolChannel(const PoolingVolume& volume, const float* input, float* output,
                   const ComputeContext& compute) const override {
    AveragePoolVolume(sliding_.window, divisor_, volume, input, output,
                      compute.Scratch(ScratchSlot::kFirst, VolumeScratchSize(volume)));
  }

 private:
  SlidingWindow sliding_;   // the window, ceil_mode, 1-D, 2-D or 3-D
  AverageDivisor divisor_;  // count_include_pad, divisor_override
};

AveragePooling::AveragePooling(const LayerConfig& config)
    : PoolingLayer(config, PooledDimensions(config.type()), /*indices_allowed=*/false),
      sliding_(ReadSlidingWindow(config, dimensions())) {
  divisor_.count_include_pad = config.BoolParam("count_include_pad", true);
  if (config.HasParam("divisor_override") && !config.Param("divisor_override").IsNone()) {
    divisor_.divisor_override = config.IntParam("divisor_override");
    if (divisor_.divisor_override <= 0) Fail("divisor_override must be positive");
  }
  const Window3d& window = sliding_.window;
  if (window.plane.dilation_h != 1 || window.plane.dilation_w != 1 || window.depth.dilation != 1) {
    Fail("dilation is not supported");
  }
}

LUMEN_REGISTER_LAYER(AveragePooling, "nn.AvgPool2d", "F.avg_pool2d", "nn.AvgPool1d", "F.avg_pool1d",
                     "nn.AvgPool3d", "F.avg_pool3d");

}  // namespace lumen
