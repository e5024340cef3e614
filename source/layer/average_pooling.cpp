#include "lumen/layer/average_pooling.hpp"

#include <algorithm>

#include "lumen/base/error.hpp"
#include "lumen/base/parallel.hpp"
#include "lumen/layer/layer_registry.hpp"
#include "lumen/layer/pooling_shape.hpp"

namespace lumen {

AveragePooling::AveragePooling(const RuntimeOperator& op) : Layer(op) {
  window_ = ReadWindow2d(op, true);
  ceil_mode_ = op.BoolParam("ceil_mode", false);
  count_include_pad_ = op.BoolParam("count_include_pad", true);
  if (op.HasParam("divisor_override") && !op.Param("divisor_override").IsNone()) {
    divisor_override_ = op.IntParam("divisor_override");
    if (divisor_override_ <= 0) Fail("divisor_override must be positive");
  }
  if (window_.dilation_h != 1 || window_.dilation_w != 1) Fail("dilation is not supported");
}

void AveragePooling::Prepare(const std::vector<Shape>& input_shapes,
                             const std::vector<Shape>& output_shapes) {
  CheckFeatureMapInput(*this, input_shapes, output_shapes);
  CheckPoolingShapes(*this, input_shapes, output_shapes,
                     window_.OutputHeight(static_cast<int>(input_shapes[0][2]), ceil_mode_),
                     window_.OutputWidth(static_cast<int>(input_shapes[0][3]), ceil_mode_));
}

void AveragePooling::Forward(const std::vector<const TensorBatch*>& inputs,
                             const std::vector<TensorBatch*>& outputs) {
  const Window2d& w = window_;
  for (size_t sample = 0; sample < inputs[0]->size(); ++sample) {
    const Tensor& input = (*inputs[0])[sample];
    Tensor& output = (*outputs[0])[sample];
    const int input_h = static_cast<int>(input.rows());
    const int input_w = static_cast<int>(input.cols());
    const int output_h = static_cast<int>(output.rows());
    const int output_w = static_cast<int>(output.cols());
    const int channels = static_cast<int>(input.channels());
    ParallelFor(channels, [&](int channel) {
      const float* source = input.channel_data(channel);
      float* target = output.channel_data(channel);
      for (int ox = 0; ox < output_w; ++ox) {
        for (int oy = 0; oy < output_h; ++oy) {
          // PyTorch's rule: the window is clipped to input + padding for count_include_pad's
          // divisor, then to the input for the sum (and for the divisor otherwise).
          int y_begin = oy * w.stride_h - w.pad_top;
          int x_begin = ox * w.stride_w - w.pad_left;
          int y_end = std::min(y_begin + w.kernel_h, input_h + w.pad_bottom);
          int x_end = std::min(x_begin + w.kernel_w, input_w + w.pad_right);
          const int padded_area = (y_end - y_begin) * (x_end - x_begin);
          y_begin = std::max(y_begin, 0);
          x_begin = std::max(x_begin, 0);
          y_end = std::min(y_end, input_h);
          x_end = std::min(x_end, input_w);
          float sum = 0.0f;
          for (int ix = x_begin; ix < x_end; ++ix) {
            for (int iy = y_begin; iy < y_end; ++iy) sum += source[ix * input_h + iy];
          }
          const int divisor = divisor_override_    ? divisor_override_
                              : count_include_pad_ ? padded_area
                                                   : (y_end - y_begin) * (x_end - x_begin);
          target[ox * output_h + oy] = divisor > 0 ? sum / static_cast<float>(divisor) : 0.0f;
        }
      }
    });
  }
}

LUMEN_REGISTER_LAYER(AveragePooling, "nn.AvgPool2d", "F.avg_pool2d");

}  // namespace lumen
