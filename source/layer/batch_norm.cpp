#include "lumen/layer/batch_norm.hpp"

#include <cmath>

#include "lumen/base/error.hpp"
#include "lumen/base/parallel.hpp"
#include "lumen/layer/layer_registry.hpp"

namespace lumen {

BatchNorm::BatchNorm(const RuntimeOperator& op) : Layer(op) {
  const int channels = op.IntParam("num_features");
  const float eps = op.FloatParam("eps", 1e-5f);
  const std::vector<float> mean = op.AttributeFloats("running_mean", {channels});
  const std::vector<float> variance = op.AttributeFloats("running_var", {channels});
  std::vector<float> weight(channels, 1.0f);
  std::vector<float> bias(channels, 0.0f);
  if (op.BoolParam("affine", true)) {
    weight = op.AttributeFloats("weight", {channels});
    bias = op.AttributeFloats("bias", {channels});
  }
  // The same folding as PyTorch's CPU inference kernel, so that results round alike.
  for (int c = 0; c < channels; ++c) {
    const float inverse_std = 1.0f / std::sqrt(variance[c] + eps);
    scale_.push_back(weight[c] * inverse_std);
    shift_.push_back(bias[c] - mean[c] * scale_.back());
  }
}

void BatchNorm::Prepare(const std::vector<Shape>& input_shapes,
                        const std::vector<Shape>& output_shapes) {
  CheckArity(input_shapes, output_shapes, 1, 1);
  const Shape& input = input_shapes[0];
  if (input.size() != 4 || input[1] != scale_.size() || output_shapes[0] != input) {
    Fail(Concat("expected input (N,", scale_.size(), ",H,W) and an output of the same shape, got ",
                ShapeToString(input), " -> ", ShapeToString(output_shapes[0])));
  }
}

void BatchNorm::Forward(const std::vector<const TensorBatch*>& inputs,
                        const std::vector<TensorBatch*>& outputs) {
  for (size_t sample = 0; sample < inputs[0]->size(); ++sample) {
    const Tensor& input = (*inputs[0])[sample];
    Tensor& output = (*outputs[0])[sample];
    const int channels = static_cast<int>(input.channels());
    const size_t area = static_cast<size_t>(input.rows()) * input.cols();
    ParallelFor(channels, [&](int channel) {
      const float* source = input.channel_data(channel);
      float* target = output.channel_data(channel);
      const float scale = scale_[channel];
      const float shift = shift_[channel];
      for (size_t i = 0; i < area; ++i) target[i] = source[i] * scale + shift;
    });
  }
}

LUMEN_REGISTER_LAYER(BatchNorm, "nn.BatchNorm2d");

}  // namespace lumen
