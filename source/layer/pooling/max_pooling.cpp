// nn.MaxPool2d and nn.MaxPool1d: the maximum over each sliding window.
#include <memory>
#include <vector>

#include "kernel/max_pooling_kernels.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "layer/pooling/pooling_layer.hpp"
#include "lumen/error.hpp"
#include "math/window.hpp"

namespace lumen {

// Max pooling with stride, padding (which never wins: it counts as -infinity), dilation and
// ceil_mode, over every plane of a (C,H,W) or (N,C,H,W) input. The 1-D form pools a (C,L) or
// (N,C,L) input along L: each sample's C x L plane with a window of height 1.
class MaxPooling : public Layer {
 public:
  // Reads the nn.MaxPool2d (nn.MaxPool1d) parameters; return_indices must be False.
  explicit MaxPooling(const LayerConfig& config);
  // The input with its plane pooled (PyTorch's size formula, computed in 64 bits: a window too
  // large for the input is refused here, before anything runs).
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Reserves the separable kernel's scratch.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override;
  // Pools every plane (separably when dilation is 1).
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  SlidingWindow sliding_;  // the window, ceil_mode, 1-D (nn.MaxPool1d / F.max_pool1d) or not
};

MaxPooling::MaxPooling(const LayerConfig& config)
    : Layer(config),
      sliding_(ReadSlidingWindow(
          config, config.type() == "nn.MaxPool1d" || config.type() == "F.max_pool1d")) {
  if (config.BoolParam("return_indices", false)) Fail("return_indices=True is not supported");
}

std::vector<Shape> MaxPooling::OutputShapes(const std::vector<Shape>& input_shapes) const {
  return {SlidingPooledShape(*this, input_shapes, sliding_)};
}

std::unique_ptr<LayerState> MaxPooling::Prepare(const std::vector<Shape>& input_shapes,
                                                const std::vector<Shape>& output_shapes,
                                                const PrepareContext& context) const {
  const Shape& input = input_shapes[0];
  const Shape& output = output_shapes[0];
  const size_t rank = input.size();
  const PoolingPlane plane{static_cast<int>(input[rank - 2]), static_cast<int>(input[rank - 1]),
                           static_cast<int>(output[rank - 2]), static_cast<int>(output[rank - 1])};
  if (context.workspace != nullptr) {
    context.workspace->Reserve(ScratchSlot::kFirst, MaxPoolSeparableScratchSize(plane));
  }
  return nullptr;
}

void MaxPooling::Forward(const std::vector<const Tensor*>& inputs,
                         const std::vector<Tensor*>& outputs, const ForwardContext& context) const {
  const Tensor& input = *inputs[0];
  Tensor& output = *outputs[0];
  const PoolingPlane plane = PlaneOf(input, output);
  const bool separable = sliding_.window.dilation_h == 1 && sliding_.window.dilation_w == 1;
  const size_t scratch_size = separable ? MaxPoolSeparableScratchSize(plane) : 0;
  ForEachPlane(input, &output, context.compute.pool, [&](const float* source, float* target) {
    if (separable) {
      float* scratch = context.compute.Scratch(ScratchSlot::kFirst, scratch_size);
      MaxPoolSeparable(sliding_.window, plane, source, target, scratch);
    } else {
      MaxPoolReference(sliding_.window, plane, source, target);
    }
  });
}

LUMEN_REGISTER_LAYER(MaxPooling, "nn.MaxPool2d", "F.max_pool2d", "nn.MaxPool1d", "F.max_pool1d");

}  // namespace lumen
