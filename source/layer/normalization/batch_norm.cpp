// nn.BatchNorm1d/2d/3d and F.batch_norm in inference mode: a per-channel scale and shift from the
// running statistics.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "base/thread_pool.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {

// y = (x - running_mean) / sqrt(running_var + eps) * weight + bias, folded into y = x*a + b, for
// an (N, C, ...) input with the channels in dimension 1: (N, C) or (N, C, L) for BatchNorm1d,
// (N, C, H, W) for BatchNorm2d, (N, C, D, H, W) for BatchNorm3d, any of them for F.batch_norm and
// lumen.BatchNorm (ONNX's BatchNormalization, the module for any rank).
// nn.BatchNorm*d folds its stored statistics once; F.batch_norm reads them (and the optional
// weight and bias) from its operands at every Forward.
class BatchNorm : public Layer {
 public:
  // Reads eps and, for nn.BatchNorm*d, num_features, affine and the four weight vectors, and folds
  // them.
  explicit BatchNorm(const LayerConfig& config);
  // The input's shape, after checking its rank and channels.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // F.batch_norm: room for the folded factors.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override;
  // Scales and shifts every element by its channel's factors.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  // F.batch_norm's factors, folded anew at every Forward.
  struct State : public LayerState {
    std::vector<float> scale, shift;
  };

  // Folds the statistics of `channels` channels into scale and shift (null weight: 1, null bias:
  // 0), as PyTorch's CPU inference kernel does, so that results round alike.
  void Fold(size_t channels, const float* mean, const float* variance, const float* weight,
            const float* bias, float* scale, float* shift) const;

  float eps_ = 1e-5f;
  size_t min_rank_ = 2, max_rank_ = 5;  // the input ranks the op type accepts
  bool functional_ = false;
  // F.batch_norm: the positions of the weight and bias operands (-1: none).
  int weight_input_ = -1, bias_input_ = -1;
  std::vector<float> scale_;  // nn.BatchNorm*d: weight / sqrt(var + eps), per channel
  std::vector<float> shift_;  // bias - mean * scale, per channel
};

namespace {

// Below this many elements the input is normalised on one thread.
constexpr size_t kParallelElements = 1 << 14;

}  // namespace

BatchNorm::BatchNorm(const LayerConfig& config) : Layer(config) {
  eps_ = config.FloatParam("eps", 1e-5f);
  const std::string& type = config.type();
  functional_ = type == "F.batch_norm";
  if (type == "nn.BatchNorm1d") {
    max_rank_ = 3;
  } else if (type == "nn.BatchNorm2d") {
    min_rank_ = max_rank_ = 4;
  } else if (type == "nn.BatchNorm3d") {
    min_rank_ = max_rank_ = 5;
  } else {
    max_rank_ = kMaxRank;
  }
  if (functional_) {
    // (input, running_mean, running_var[, weight[, bias]]); pnnx names the roles.
    const int inputs = static_cast<int>(config.input_count());
    if (inputs < 3 || inputs > 5) {
      Fail(Concat("expected 3 to 5 inputs (input, running_mean, running_var, weight, bias), got ",
                  inputs));
    }
    const auto role = [&](const char* name, int position) {
      const int by_role = config.InputIndexOfRole(name);
      if (by_role >= 0) return by_role;
      return position < inputs ? position : -1;
    };
    weight_input_ = config.HasParam("weight") ? -1 : role("weight", 3);
    bias_input_ = config.HasParam("bias") ? -1 : role("bias", weight_input_ >= 0 ? 4 : 3);
    return;
  }
  const int channels = config.IntParam("num_features");
  if (channels < 1) Fail(Concat("num_features must be positive, got ", channels));
  const std::vector<float> mean = config.AttributeFloats("running_mean", {channels});
  const std::vector<float> variance = config.AttributeFloats("running_var", {channels});
  std::vector<float> weight;
  std::vector<float> bias;
  if (config.BoolParam("affine", true)) {
    weight = config.AttributeFloats("weight", {channels});
    bias = config.AttributeFloats("bias", {channels});
  }
  scale_.resize(channels);
  shift_.resize(channels);
  Fold(channels, mean.data(), variance.data(), weight.empty() ? nullptr : weight.data(),
       bias.empty() ? nullptr : bias.data(), scale_.data(), shift_.data());
}

void BatchNorm::Fold(size_t channels, const float* mean, const float* variance, const float* weight,
                     const float* bias, float* scale, float* shift) const {
  for (size_t c = 0; c < channels; ++c) {
    const float inverse_std = 1.0f / std::sqrt(variance[c] + eps_);
    scale[c] = (weight ? weight[c] : 1.0f) * inverse_std;
    shift[c] = (bias ? bias[c] : 0.0f) - mean[c] * scale[c];
  }
}

std::vector<Shape> BatchNorm::OutputShapes(const std::vector<Shape>& input_shapes) const {
  const size_t inputs =
      functional_ ? 3 + (weight_input_ >= 0 ? 1 : 0) + (bias_input_ >= 0 ? 1 : 0) : 1;
  CheckInputCount(input_shapes, inputs);
  const Shape& input = input_shapes[0];
  const std::string c = functional_ ? "C" : std::to_string(scale_.size());
  const std::string expected = min_rank_ == 5   ? "(N," + c + ",D,H,W)"
                               : min_rank_ == 4 ? "(N," + c + ",H,W)"
                               : max_rank_ == 3 ? "(N," + c + ") or (N," + c + ",L)"
                                                : "(N,C,...)";
  if (input.size() < min_rank_ || input.size() > max_rank_ ||
      (!functional_ && input[1] != scale_.size())) {
    Fail(Concat("expected an input of shape ", expected, ", got ", ShapeToString(input)));
  }
  for (size_t i = 1; i < inputs; ++i) {
    if (input_shapes[i] != Shape{input[1]}) {
      Fail(Concat("expected statistics, weight and bias of shape (", input[1], ") for the input ",
                  ShapeToString(input), ", got ", ShapeToString(input_shapes[i]), " for input ",
                  i));
    }
  }
  return {input};
}

std::unique_ptr<LayerState> BatchNorm::Prepare(const std::vector<Shape>& input_shapes,
                                               const std::vector<Shape>& /*output_shapes*/,
                                               const PrepareContext& /*context*/) const {
  auto state = std::make_unique<State>();
  if (functional_) {
    state->scale.resize(input_shapes[0][1]);
    state->shift.resize(input_shapes[0][1]);
  }
  return state;
}

void BatchNorm::Forward(const std::vector<const Tensor*>& inputs,
                        const std::vector<Tensor*>& outputs, const ForwardContext& context) const {
  const Tensor& input = *inputs[0];
  Tensor& output = *outputs[0];
  const float* scale = scale_.data();
  const float* shift = shift_.data();
  if (functional_) {
    // One-dimensional operands: their storage is in logical order.
    State& state = context.state_as<State>();
    const auto data = [&](int index) {
      return index >= 0 ? inputs[static_cast<size_t>(index)]->data() : nullptr;
    };
    Fold(state.scale.size(), inputs[1]->data(), inputs[2]->data(), data(weight_input_),
         data(bias_input_), state.scale.data(), state.shift.data());
    scale = state.scale.data();
    shift = state.shift.data();
  }
  const Shape& shape = input.shape();
  const size_t channels = shape[1];
  const size_t rows = input.rows();
  const size_t cols = input.cols();
  const bool parallel = input.size() >= kParallelElements;
  if (shape.size() == 2) {
    // (N, C): one column-major N x C matrix, a channel per column.
    for (size_t c = 0; c < cols; ++c) {
      const float* source = input.data() + c * rows;
      float* target = output.data() + c * rows;
      for (size_t n = 0; n < rows; ++n) target[n] = source[n] * scale[c] + shift[c];
    }
    return;
  }
  if (shape.size() == 3) {
    // (N, C, L): N column-major C x L matrices, a channel per row.
    ParallelFor(
        context.compute.pool, static_cast<std::ptrdiff_t>(input.channels() * cols),
        [&](std::ptrdiff_t column) {
          const float* source = input.data() + column * rows;
          float* target = output.data() + column * rows;
          for (size_t c = 0; c < rows; ++c) target[c] = source[c] * scale[c] + shift[c];
        },
        Schedule::kStatic, parallel);
    return;
  }
  // (N, C, ..., H, W): plane p of the N*C*... planes belongs to channel (p / inner) % C.
  size_t inner = 1;
  for (size_t d = 2; d + 2 < shape.size(); ++d) inner *= shape[d];
  const size_t area = rows * cols;
  ParallelFor(
      context.compute.pool, static_cast<std::ptrdiff_t>(input.channels()),
      [&](std::ptrdiff_t plane) {
        const float* source = input.channel_data(plane);
        float* target = output.channel_data(plane);
        const size_t channel = static_cast<size_t>(plane) / inner % channels;
        const float a = scale[channel];
        const float b = shift[channel];
        for (size_t i = 0; i < area; ++i) target[i] = source[i] * a + b;
      },
      Schedule::kStatic, parallel);
}

LUMEN_REGISTER_LAYER(BatchNorm, "nn.BatchNorm1d", "nn.BatchNorm2d", "nn.BatchNorm3d",
                     "lumen.BatchNorm", "F.batch_norm");

}  // namespace lumen
