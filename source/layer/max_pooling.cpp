#include "lumen/layer/max_pooling.hpp"

#include <cmath>
#include <limits>

#include "lumen/base/error.hpp"
#include "lumen/layer/layer_registry.hpp"
#include "lumen/layer/pooling_shape.hpp"

namespace lumen {

MaxPooling::MaxPooling(const RuntimeOperator& op) : Layer(op) {
  window_ = ReadWindow2d(op, true);
  ceil_mode_ = op.BoolParam("ceil_mode", false);
  if (op.BoolParam("return_indices", false)) Fail("return_indices=True is not supported");
  if (window_.pad_top * 2 > window_.kernel_h || window_.pad_left * 2 > window_.kernel_w) {
    Fail("padding must be at most half the kernel size (as PyTorch requires)");
  }
}

void MaxPooling::Prepare(const std::vector<Shape>& input_shapes,
                         const std::vector<Shape>& output_shapes) {
  CheckFeatureMapInput(*this, input_shapes, output_shapes);
  CheckPoolingShapes(*this, input_shapes, output_shapes,
                     window_.OutputHeight(static_cast<int>(input_shapes[0][2]), ceil_mode_),
                     window_.OutputWidth(static_cast<int>(input_shapes[0][3]), ceil_mode_));
}

void MaxPooling::Forward(const std::vector<const TensorBatch*>& inputs,
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
#pragma omp parallel for schedule(static)
    for (int channel = 0; channel < channels; ++channel) {
      const float* source = input.channel_data(channel);
      float* target = output.channel_data(channel);
      for (int ox = 0; ox < output_w; ++ox) {
        for (int oy = 0; oy < output_h; ++oy) {
          // Window taps outside the input are padding and never the maximum.
          float maximum = -std::numeric_limits<float>::infinity();
          for (int kx = 0; kx < w.kernel_w; ++kx) {
            const int ix = ox * w.stride_w - w.pad_left + kx * w.dilation_w;
            if (ix < 0 || ix >= input_w) continue;
            for (int ky = 0; ky < w.kernel_h; ++ky) {
              const int iy = oy * w.stride_h - w.pad_top + ky * w.dilation_h;
              if (iy < 0 || iy >= input_h) continue;
              const float value = source[ix * input_h + iy];
              if (value > maximum || std::isnan(value)) maximum = value;  // NaN wins, as in torch
            }
          }
          target[ox * output_h + oy] = maximum;
        }
      }
    }
  }
}

LUMEN_REGISTER_LAYER(MaxPooling, "nn.MaxPool2d", "F.max_pool2d");

}  // namespace lumen
