#include "lumen/layer/max_pooling.hpp"

#include "lumen/base/error.hpp"
#include "lumen/base/parallel.hpp"
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
  const Shape& input = input_shapes[0];
  plane_.input_h = static_cast<int>(input[2]);
  plane_.input_w = static_cast<int>(input[3]);
  plane_.output_h = window_.OutputHeight(plane_.input_h, ceil_mode_);
  plane_.output_w = window_.OutputWidth(plane_.input_w, ceil_mode_);
  CheckPoolingShapes(*this, input_shapes, output_shapes, plane_.output_h, plane_.output_w);
  workspace_.assign(static_cast<size_t>(input[1]) * plane_.input_w * plane_.output_h, 0.0f);
}

void MaxPooling::Forward(const std::vector<const TensorBatch*>& inputs,
                         const std::vector<TensorBatch*>& outputs) {
  const bool separable = window_.dilation_h == 1 && window_.dilation_w == 1;
  const size_t workspace_size = static_cast<size_t>(plane_.input_w) * plane_.output_h;
  for (size_t sample = 0; sample < inputs[0]->size(); ++sample) {
    const Tensor& input = (*inputs[0])[sample];
    Tensor& output = (*outputs[0])[sample];
    const int channels = static_cast<int>(input.channels());
    ParallelFor(channels, [&](int channel) {
      if (separable) {
        MaxPoolSeparable(window_, plane_, input.channel_data(channel), output.channel_data(channel),
                         workspace_.data() + channel * workspace_size);
      } else {
        MaxPoolReference(window_, plane_, input.channel_data(channel),
                         output.channel_data(channel));
      }
    });
  }
}

LUMEN_REGISTER_LAYER(MaxPooling, "nn.MaxPool2d", "F.max_pool2d");

}  // namespace lumen
