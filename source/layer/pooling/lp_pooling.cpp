// nn.LPPool1d/2d/3d and F.lp_pool1d/2d/3d: the p-norm over each sliding window.
#include <cmath>
#include <memory>
#include <vector>

#include "kernel/average_pooling.hpp"
#include "kernel/volume_pooling.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "layer/pooling/pooling_layer.hpp"
#include "lumen/error.hpp"

namespace lumen {

// PyTorch computes lp_pool as avg_pool(x^p) * (kernel elements), then ^(1/p): with ceil_mode a
// window hanging over the edge averages only its taps inside the input but is still multiplied
// by the whole kernel's size, so this layer does the same rather than summing x^p.
class LpPooling : public Layer {
 public:
  // Reads norm_type, kernel_size, stride (the kernel's by default) and ceil_mode.
  explicit LpPooling(const LayerConfig& config)
      : Layer(config),
        sliding_(ReadSlidingWindow(config, PooledDimensions(config.type()))),
        norm_(config.FloatParam("norm_type")) {
    if (norm_ == 0.0f || std::isnan(norm_)) Fail("norm_type must be a non-zero number");
    const Window3d& window = sliding_.window;
    if (window.plane.dilation_h != 1 || window.plane.dilation_w != 1 ||
        window.depth.dilation != 1) {
      Fail("dilation is not supported");
    }
    kernel_elements_ =
        static_cast<float>(window.depth.kernel) * window.plane.kernel_h * window.plane.kernel_w;
  }

  // The input pooled (PyTorch's size formula).
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    return {SlidingPooledShape(*this, input_shapes, sliding_)};
  }

  // Reserves room for one channel's x^p and the depth pass's scratch.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                       const PrepareContext& context) const override {
    const PoolingVolume volume = VolumeOf(input_shapes[0], output_shapes[0], sliding_.dimensions);
    if (context.workspace != nullptr) {
      context.workspace->Reserve(ScratchSlot::kFirst, volume.InputSize());
      context.workspace->Reserve(ScratchSlot::kSecond, VolumeScratchSize(volume));
    }
    return nullptr;
  }

  // Raises each channel to the p-th power, averages its windows, and takes the p-th root of the
  // averages times the kernel's size.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const PoolingVolume volume =
        VolumeOf(inputs[0]->shape(), outputs[0]->shape(), sliding_.dimensions);
    const AverageDivisor divisor;  // padding 0, count_include_pad: what F.lp_pool passes
    ForEachVolume(*inputs[0], outputs[0], volume, context.compute.pool,
                  [&](const float* input, float* output) {
                    float* powered =
                        context.compute.Scratch(ScratchSlot::kFirst, volume.InputSize());
                    for (size_t i = 0; i < volume.InputSize(); ++i) {
                      powered[i] = std::pow(input[i], norm_);
                    }
                    AveragePoolVolume(
                        sliding_.window, divisor, volume, powered, output,
                        context.compute.Scratch(ScratchSlot::kSecond, VolumeScratchSize(volume)));
                    for (size_t i = 0; i < volume.OutputSize(); ++i) {
                      output[i] = std::pow(output[i] * kernel_elements_, 1.0f / norm_);
                    }
                  });
  }

 private:
  SlidingWindow sliding_;  // the window, ceil_mode, 1-D, 2-D or 3-D
  float norm_;             // p
  float kernel_elements_;  // what PyTorch multiplies the average by
};

LUMEN_REGISTER_LAYER(LpPooling, "nn.LPPool1d", "F.lp_pool1d", "nn.LPPool2d", "F.lp_pool2d",
                     "nn.LPPool3d", "F.lp_pool3d");

}  // namespace lumen
