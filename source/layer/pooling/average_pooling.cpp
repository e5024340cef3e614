// nn.AvgPool2d and nn.AvgPool1d: the mean over each sliding window.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "base/thread_pool.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "layer/pooling/pooling_shape.hpp"
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
  bool count_include_pad_ = true;
  int divisor_override_ = 0;  // 0: none
};

namespace {

// Below this many input elements the planes are pooled on one thread.
constexpr size_t kParallelElements = 1 << 12;

}  // namespace

AveragePooling::AveragePooling(const LayerConfig& config)
    : Layer(config),
      one_dimensional_(config.type() == "nn.AvgPool1d" || config.type() == "F.avg_pool1d"),
      window_(one_dimensional_ ? ReadWindow1d(config, /*stride_defaults_to_kernel=*/true)
                               : ReadWindow2d(config, /*stride_defaults_to_kernel=*/true)),
      ceil_mode_(config.BoolParam("ceil_mode", false)),
      count_include_pad_(config.BoolParam("count_include_pad", true)) {
  if (config.HasParam("divisor_override") && !config.Param("divisor_override").IsNone()) {
    divisor_override_ = config.IntParam("divisor_override");
    if (divisor_override_ <= 0) Fail("divisor_override must be positive");
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
  const Window2d& w = window_;
  const Tensor& input = *inputs[0];
  Tensor& output = *outputs[0];
  const int64_t input_h = input.rows();
  const int64_t input_w = input.cols();
  const int output_h = static_cast<int>(output.rows());
  const int output_w = static_cast<int>(output.cols());
  ParallelFor(
      context.compute.pool, static_cast<std::ptrdiff_t>(input.channels()),
      [&](std::ptrdiff_t channel) {
        const float* source = input.channel_data(channel);
        float* target = output.channel_data(channel);
        for (int ox = 0; ox < output_w; ++ox) {
          // PyTorch's rule: the window is clipped to input + padding for count_include_pad's
          // divisor, then to the input for the sum (and for the divisor otherwise). In 64 bits:
          // a hostile window's ends do not fit in an int.
          const int64_t x_begin_padded = int64_t{ox} * w.stride_w - w.pad_left;
          const int64_t x_end_padded = std::min(x_begin_padded + w.kernel_w, input_w + w.pad_right);
          const int64_t x_begin = std::max<int64_t>(x_begin_padded, 0);
          const int64_t x_end = std::min(x_end_padded, input_w);
          for (int oy = 0; oy < output_h; ++oy) {
            const int64_t y_begin_padded = int64_t{oy} * w.stride_h - w.pad_top;
            const int64_t y_end_padded =
                std::min(y_begin_padded + w.kernel_h, input_h + w.pad_bottom);
            const int64_t y_begin = std::max<int64_t>(y_begin_padded, 0);
            const int64_t y_end = std::min(y_end_padded, input_h);
            float sum = 0.0f;
            for (int64_t ix = x_begin; ix < x_end; ++ix) {
              for (int64_t iy = y_begin; iy < y_end; ++iy) sum += source[ix * input_h + iy];
            }
            const int64_t divisor = divisor_override_ != 0 ? divisor_override_
                                    : count_include_pad_   ? (y_end_padded - y_begin_padded) *
                                                               (x_end_padded - x_begin_padded)
                                                         : (y_end - y_begin) * (x_end - x_begin);
            target[static_cast<size_t>(ox) * output_h + oy] =
                divisor > 0 ? sum / static_cast<float>(divisor) : 0.0f;
          }
        }
      },
      Schedule::kStatic, input.size() >= kParallelElements);
}

LUMEN_REGISTER_LAYER(AveragePooling, "nn.AvgPool2d", "F.avg_pool2d", "nn.AvgPool1d",
                     "F.avg_pool1d");

}  // namespace lumen
