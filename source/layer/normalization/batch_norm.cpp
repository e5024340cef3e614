// nn.BatchNorm2d in inference mode: a per-channel scale and shift from the running statistics.
#include <cmath>
#include <vector>

#include "base/thread_pool.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {

// y = (x - running_mean) / sqrt(running_var + eps) * weight + bias, folded once into y = x*a + b,
// for an (N, num_features, H, W) input of any N, H and W.
class BatchNorm : public Layer {
 public:
  // Reads eps, num_features, affine and the four weight vectors, and folds them.
  explicit BatchNorm(const LayerConfig& config);
  // The input's shape, after checking it is (N, num_features, H, W).
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Scales and shifts every plane by its channel's factors.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  std::vector<float> scale_;  // weight / sqrt(var + eps), per channel
  std::vector<float> shift_;  // bias - mean * scale, per channel
};

namespace {

// Below this many elements the planes are normalised on one thread.
constexpr size_t kParallelElements = 1 << 14;

}  // namespace

BatchNorm::BatchNorm(const LayerConfig& config) : Layer(config) {
  const int channels = config.IntParam("num_features");
  if (channels < 1) Fail(Concat("num_features must be positive, got ", channels));
  const float eps = config.FloatParam("eps", 1e-5f);
  const std::vector<float> mean = config.AttributeFloats("running_mean", {channels});
  const std::vector<float> variance = config.AttributeFloats("running_var", {channels});
  std::vector<float> weight(channels, 1.0f);
  std::vector<float> bias(channels, 0.0f);
  if (config.BoolParam("affine", true)) {
    weight = config.AttributeFloats("weight", {channels});
    bias = config.AttributeFloats("bias", {channels});
  }
  // The same folding as PyTorch's CPU inference kernel, so that results round alike.
  for (int c = 0; c < channels; ++c) {
    const float inverse_std = 1.0f / std::sqrt(variance[c] + eps);
    scale_.push_back(weight[c] * inverse_std);
    shift_.push_back(bias[c] - mean[c] * scale_.back());
  }
}

std::vector<Shape> BatchNorm::OutputShapes(const std::vector<Shape>& input_shapes) const {
  CheckInputCount(input_shapes, 1);
  const Shape& input = input_shapes[0];
  if (input.size() != 4 || input[1] != scale_.size()) {
    Fail(Concat("expected an input of shape (N,", scale_.size(), ",H,W), got ",
                ShapeToString(input)));
  }
  return {input};
}

void BatchNorm::Forward(const std::vector<const Tensor*>& inputs,
                        const std::vector<Tensor*>& outputs, const ForwardContext& context) const {
  const Tensor& input = *inputs[0];
  Tensor& output = *outputs[0];
  // Plane p of the (N*C) planes belongs to sample p / C, channel p % C.
  const size_t channels = scale_.size();
  const size_t area = static_cast<size_t>(input.rows()) * input.cols();
  ParallelFor(
      context.compute.pool, static_cast<std::ptrdiff_t>(input.channels()),
      [&](std::ptrdiff_t plane) {
        const float* source = input.channel_data(plane);
        float* target = output.channel_data(plane);
        const float scale = scale_[static_cast<size_t>(plane) % channels];
        const float shift = shift_[static_cast<size_t>(plane) % channels];
        for (size_t i = 0; i < area; ++i) target[i] = source[i] * scale + shift;
      },
      Schedule::kStatic, input.size() >= kParallelElements);
}

LUMEN_REGISTER_LAYER(BatchNorm, "nn.BatchNorm2d");

}  // namespace lumen
