// nn.MaxPool2d and nn.MaxPool1d: the maximum over each sliding window.
#include <cstdint>
#include <memory>
#include <vector>

#include "base/thread_pool.hpp"
#include "kernel/max_pooling_kernels.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "layer/pooling/pooling_shape.hpp"
#include "layer/window.hpp"
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
  bool one_dimensional_ = false;  // nn.MaxPool1d / F.max_pool1d
  Window2d window_;
  bool ceil_mode_ = false;
};

namespace {

// Below this many input elements the planes are pooled on one thread.
constexpr size_t kParallelElements = 1 << 12;

// The geometry of one plane of `input` pooled into `output`.
PoolingPlane PlaneOf(const Tensor& input, const Tensor& output) {
  return PoolingPlane{static_cast<int>(input.rows()), static_cast<int>(input.cols()),
                      static_cast<int>(output.rows()), static_cast<int>(output.cols())};
}

}  // namespace

MaxPooling::MaxPooling(const LayerConfig& config)
    : Layer(config),
      one_dimensional_(config.type() == "nn.MaxPool1d" || config.type() == "F.max_pool1d"),
      window_(one_dimensional_ ? ReadWindow1d(config, /*stride_defaults_to_kernel=*/true)
                               : ReadWindow2d(config, /*stride_defaults_to_kernel=*/true)),
      ceil_mode_(config.BoolParam("ceil_mode", false)) {
  if (config.BoolParam("return_indices", false)) Fail("return_indices=True is not supported");
  // PyTorch's own check; it also guarantees that every window holds an input value.
  if (int64_t{window_.pad_top} * 2 > window_.kernel_h ||
      int64_t{window_.pad_bottom} * 2 > window_.kernel_h ||
      int64_t{window_.pad_left} * 2 > window_.kernel_w ||
      int64_t{window_.pad_right} * 2 > window_.kernel_w) {
    Fail("padding must be at most half the kernel size (as PyTorch requires)");
  }
}

std::vector<Shape> MaxPooling::OutputShapes(const std::vector<Shape>& input_shapes) const {
  const PlaneSize plane = FeatureMapPlane(*this, input_shapes, one_dimensional_);
  return {PooledShape(*this, input_shapes[0], window_.OutputHeight(plane.height, ceil_mode_),
                      window_.OutputWidth(plane.width, ceil_mode_))};
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
  const bool separable = window_.dilation_h == 1 && window_.dilation_w == 1;
  const size_t scratch_size = separable ? MaxPoolSeparableScratchSize(plane) : 0;
  ParallelFor(
      context.compute.pool, static_cast<std::ptrdiff_t>(input.channels()),
      [&](std::ptrdiff_t channel) {
        if (separable) {
          float* scratch = context.compute.Scratch(ScratchSlot::kFirst, scratch_size);
          MaxPoolSeparable(window_, plane, input.channel_data(channel),
                           output.channel_data(channel), scratch);
        } else {
          MaxPoolReference(window_, plane, input.channel_data(channel),
                           output.channel_data(channel));
        }
      },
      Schedule::kStatic, input.size() >= kParallelElements);
}

LUMEN_REGISTER_LAYER(MaxPooling, "nn.MaxPool2d", "F.max_pool2d", "nn.MaxPool1d", "F.max_pool1d");

}  // namespace lumen
