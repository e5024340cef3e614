// nn.MaxPool1d, nn.MaxPool2d and nn.MaxPool3d: the maximum over each sliding window.
#include <memory>
#include <vector>

#include "kernel/max_pooling_kernels.hpp"
#include "kernel/volume_pooling.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "layer/pooling/pooling_layer.hpp"
#include "lumen/error.hpp"
#include "math/window.hpp"

namespace lumen {

// Max pooling with stride, padding (which never wins: it counts as -infinity), dilation and
// ceil_mode, over every channel of a 1-D, 2-D or 3-D feature map, batched or not. With
// return_indices a second output holds each maximum's flattened position in its channel (as
// floats), as PyTorch returns them.
class MaxPooling : public Layer {
 public:
  // Reads the nn.MaxPool1d/2d/3d parameters.
  explicit MaxPooling(const LayerConfig& config);
  // The input pooled (PyTorch's size formula, computed in 64 bits: a window too large for the
  // input is refused here, before anything runs), twice with return_indices.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Reserves the separable kernel's and the depth pass's scratch.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override;
  // Pools every channel (each depth slice separably when dilation is 1, then across depth).
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  SlidingWindow sliding_;  // the window, ceil_mode, 1-D, 2-D or 3-D
  bool return_indices_;
};

MaxPooling::MaxPooling(const LayerConfig& config)
    : Layer(config),
      sliding_(ReadSlidingWindow(config, PooledDimensions(config.type()))),
      return_indices_(config.BoolParam("return_indices", false)) {}

std::vector<Shape> MaxPooling::OutputShapes(const std::vector<Shape>& input_shapes) const {
  const Shape output = SlidingPooledShape(*this, input_shapes, sliding_);
  if (return_indices_) return {output, output};
  return {output};
}

std::unique_ptr<LayerState> MaxPooling::Prepare(const std::vector<Shape>& input_shapes,
                                                const std::vector<Shape>& output_shapes,
                                                const PrepareContext& context) const {
  const PoolingVolume volume = VolumeOf(input_shapes[0], output_shapes[0], sliding_.dimensions);
  if (context.workspace != nullptr && !return_indices_) {
    context.workspace->Reserve(ScratchSlot::kFirst, MaxPoolSeparableScratchSize(volume.plane));
    context.workspace->Reserve(ScratchSlot::kSecond, VolumeScratchSize(volume));
  }
  return nullptr;
}

void MaxPooling::Forward(const std::vector<const Tensor*>& inputs,
                         const std::vector<Tensor*>& outputs, const ForwardContext& context) const {
  const Tensor& input = *inputs[0];
  const PoolingVolume volume = VolumeOf(input.shape(), outputs[0]->shape(), sliding_.dimensions);
  const Window3d& window = sliding_.window;
  if (return_indices_) {
    float* indices = outputs[1]->data();
    const float* output_start = outputs[0]->data();
    ForEachVolume(input, outputs[0], volume, context.compute.pool,
                  [&](const float* source, float* target) {
                    MaxPoolWithIndices(window, volume, sliding_.dimensions != 1, source, target,
                                       indices + (target - output_start));
                  });
    return;
  }
  const bool separable = window.plane.dilation_h == 1 && window.plane.dilation_w == 1;
  const size_t plane_scratch_size = separable ? MaxPoolSeparableScratchSize(volume.plane) : 0;
  const size_t slice_size = volume.OutputSliceSize();
  ForEachVolume(
      input, outputs[0], volume, context.compute.pool, [&](const float* source, float* target) {
        float* plane_scratch = context.compute.Scratch(ScratchSlot::kFirst, plane_scratch_size);
        float* slices = context.compute.Scratch(ScratchSlot::kSecond, VolumeScratchSize(volume));
        PoolVolume(
            volume, source, target, slices,
            [&](const float* slice, float* pooled) {
              if (separable) {
                MaxPoolSeparable(window.plane, volume.plane, slice, pooled, plane_scratch);
              } else {
                MaxPoolReference(window.plane, volume.plane, slice, pooled);
              }
            },
            [&](int64_t index, const float* pooled, float* output) {
              MaxOfSlices(pooled, slice_size, SlidingTaps(window.depth, volume.input_d, index),
                          output);
            });
      });
}

LUMEN_REGISTER_LAYER(MaxPooling, "nn.MaxPool2d", "F.max_pool2d", "nn.MaxPool1d", "F.max_pool1d",
                     "nn.MaxPool3d", "F.max_pool3d");

}  // namespace lumen
