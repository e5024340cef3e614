#include "lumen/layer/adaptive_average_pooling.hpp"

#include "lumen/base/error.hpp"
#include "lumen/base/parallel.hpp"
#include "lumen/layer/layer_registry.hpp"
#include "lumen/layer/pooling_shape.hpp"

namespace lumen {

AdaptiveAveragePooling::AdaptiveAveragePooling(const RuntimeOperator& op) : Layer(op) {
  const RuntimeParameter& size = op.Param("output_size");
  if (size.type() == RuntimeParameter::Type::kInt) {
    requested_h_ = requested_w_ = size.AsInt();
  } else if (size.type() == RuntimeParameter::Type::kStringArray) {
    // (None,7) style: None keeps that input extent.
    const std::vector<std::string>& items = size.AsStringArray();
    if (items.size() != 2) Fail(Concat("output_size must have 2 entries, got '", size.text(), "'"));
    int* extents[2] = {&requested_h_, &requested_w_};
    for (int i = 0; i < 2; ++i) {
      *extents[i] = items[i] == "None" ? 0 : RuntimeParameter::Parse(items[i]).AsInt();
    }
  } else {
    const std::vector<int> pair = op.IntPairParam("output_size");
    requested_h_ = pair[0];
    requested_w_ = pair[1];
  }
  if (requested_h_ < 0 || requested_w_ < 0) Fail("output_size must be positive");
}

void AdaptiveAveragePooling::Prepare(const std::vector<Shape>& input_shapes,
                                     const std::vector<Shape>& output_shapes) {
  CheckFeatureMapInput(*this, input_shapes, output_shapes);
  output_h_ = requested_h_ == 0 ? static_cast<int>(input_shapes[0][2]) : requested_h_;
  output_w_ = requested_w_ == 0 ? static_cast<int>(input_shapes[0][3]) : requested_w_;
  CheckPoolingShapes(*this, input_shapes, output_shapes, output_h_, output_w_);
}

void AdaptiveAveragePooling::Forward(const std::vector<const TensorBatch*>& inputs,
                                     const std::vector<TensorBatch*>& outputs) {
  // LESSON 09 BEGIN: average each output cell's window, as PyTorch places it
  for (size_t sample = 0; sample < inputs[0]->size(); ++sample) {
    const Tensor& input = (*inputs[0])[sample];
    Tensor& output = (*outputs[0])[sample];
    const int input_h = static_cast<int>(input.rows());
    const int input_w = static_cast<int>(input.cols());
    const int channels = static_cast<int>(input.channels());
    ParallelFor(channels, [&](int channel) {
      const float* source = input.channel_data(channel);
      float* target = output.channel_data(channel);
      for (int ox = 0; ox < output_w_; ++ox) {
        const int x_begin = ox * input_w / output_w_;
        const int x_end = ((ox + 1) * input_w + output_w_ - 1) / output_w_;
        for (int oy = 0; oy < output_h_; ++oy) {
          const int y_begin = oy * input_h / output_h_;
          const int y_end = ((oy + 1) * input_h + output_h_ - 1) / output_h_;
          float sum = 0.0f;
          for (int ix = x_begin; ix < x_end; ++ix) {
            for (int iy = y_begin; iy < y_end; ++iy) sum += source[ix * input_h + iy];
          }
          target[ox * output_h_ + oy] =
              sum / static_cast<float>((y_end - y_begin) * (x_end - x_begin));
        }
      }
    });
  }
  // LESSON 09 END
}

LUMEN_REGISTER_LAYER(AdaptiveAveragePooling, "nn.AdaptiveAvgPool2d", "F.adaptive_avg_pool2d");

}  // namespace lumen
