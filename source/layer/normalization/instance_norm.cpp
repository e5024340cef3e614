// nn.InstanceNorm1d/2d/3d / F.instance_norm: every channel of every sample is standardised over
// its own positions (mean and biased variance), then gets its weight and bias. The modules take a
// batched (N, C, *spatial) or an unbatched (C, *spatial) input; F.instance_norm a batched one.
// A module with track_running_stats=True uses its running mean and variance instead (PyTorch in
// eval mode), which is a per-channel scale and shift. lumen.InstanceNorm (ONNX's
// InstanceNormalization) is the module for any batched rank from 3 on.
#include <cmath>

#include "layer/layer_registry.hpp"
#include "layer/normalization/normalization.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// Per session: the shared normalisation layout, plus the channel count for the running statistics.
struct InstanceNormState : NormalizationState {
  size_t channels = 0;
};

// The spatial rank of nn.InstanceNorm<k>d, or 0 for F.instance_norm and lumen.InstanceNorm (any,
// batched).
int SpatialRank(const std::string& type) {
  if (type == "nn.InstanceNorm1d") return 1;
  if (type == "nn.InstanceNorm2d") return 2;
  if (type == "nn.InstanceNorm3d") return 3;
  return 0;
}

// Instance normalisation.
class InstanceNorm : public NormalizationLayer {
 public:
  explicit InstanceNorm(const LayerConfig& config)
      : NormalizationLayer(config,
                           {NormalizationStatistic::kStandardize, EpsParam(config, 1e-5f, 1e-5f)}),
        spatial_rank_(SpatialRank(config.type())),
        functional_(config.type() == "F.instance_norm"),
        features_(config.IntParam("num_features", -1)) {
    if (functional_) {
      // F.instance_norm(input, running_mean, running_var, weight, bias): use_input_stats is True
      // in every form pnnx matches, so running_mean and running_var, if given, are operands that
      // do not change the output. pnnx names the weight and bias by role.
      set_affine(FunctionAffineArguments(config));
      operand_count_ = config.input_count();
      const size_t statistics = (config.InputIndexOfRole("running_mean") >= 0 ? 1 : 0) +
                                (config.InputIndexOfRole("running_var") >= 0 ? 1 : 0);
      if (operand_count_ != affine().InputCount() + statistics) {
        Fail(
            Concat("expected the input, optional running_mean and running_var, weight and bias "
                   "named by role, got ",
                   operand_count_, " inputs"));
      }
      return;
    }
    const bool affine = config.BoolParam("affine", false);
    if (affine) {
      if (features_ < 0) features_ = config.GetAttribute("weight").shape.at(0);
      const Shape shape{static_cast<uint32_t>(features_)};
      set_affine({WeightParameter::FromAttribute(config, "weight", shape),
                  WeightParameter::FromAttribute(config, "bias", shape)});
    }
    if (config.BoolParam("track_running_stats", false)) {
      if (features_ < 0) features_ = config.GetAttribute("running_mean").shape.at(0);
      const std::vector<float> mean = config.AttributeFloats("running_mean", {features_});
      const std::vector<float> variance = config.AttributeFloats("running_var", {features_});
      const std::vector<float> weight =
          affine ? config.AttributeFloats("weight", {features_}) : std::vector<float>();
      const std::vector<float> bias =
          affine ? config.AttributeFloats("bias", {features_}) : std::vector<float>();
      // Folded like nn.BatchNorm2d's inference: y = x * scale + shift.
      for (int c = 0; c < features_; ++c) {
        const float inverse_std = 1.0f / std::sqrt(variance[c] + spec().eps);
        const float scale = (affine ? weight[c] : 1.0f) * inverse_std;
        running_scale_.push_back(scale);
        running_shift_.push_back((affine ? bias[c] : 0.0f) - mean[c] * scale);
      }
    }
  }

  // (C), once the input is (N, C, *spatial) or, for the modules, also (C, *spatial).
  Shape AffineShape(const Shape& input) const override {
    const size_t rank = input.size();
    if (spatial_rank_ > 0) {
      const auto batched = static_cast<size_t>(spatial_rank_) + 2;
      if (rank != batched && rank != batched - 1) {
        Fail(Concat("expected a ", batched - 1, "-D or ", batched, "-D input, got ",
                    ShapeToString(input)));
      }
    } else if (rank < 3) {
      Fail(Concat("expected an input of shape (N,C,*spatial), got ", ShapeToString(input)));
    }
    const size_t first_spatial = rank - (spatial_rank_ > 0 ? spatial_rank_ : rank - 2);
    const uint32_t channels = input[first_spatial - 1];
    // Without weights or running statistics PyTorch only warns about another channel count.
    const bool uses_features = affine().weight.present() || !running_scale_.empty();
    if (features_ >= 0 && uses_features && channels != static_cast<uint32_t>(features_)) {
      Fail(Concat("expected ", features_, " channels (num_features), got input ",
                  ShapeToString(input)));
    }
    size_t positions = 1;
    for (size_t d = first_spatial; d < rank; ++d) positions *= input[d];
    if (positions == 1 && running_scale_.empty()) {
      Fail(Concat("expected more than 1 spatial element per channel, got input ",
                  ShapeToString(input)));
    }
    return {channels};
  }

  // F.instance_norm's operands include the running statistics.
  size_t InputCount() const override {
    return functional_ ? operand_count_ : affine().InputCount();
  }

  // Keeps the channel count beside the layout, for the running statistics.
  std::unique_ptr<NormalizationState> NewState() const override {
    return std::make_unique<InstanceNormState>();
  }

  // Lays the channels out: contiguous planes with two or more spatial dimensions, lanes with one.
  void LayOutGroups(const Shape& input, NormalizationState* state) const override {
    const size_t rank = input.size();
    const size_t spatial = spatial_rank_ > 0 ? static_cast<size_t>(spatial_rank_) : rank - 2;
    const size_t first_spatial = rank - spatial;
    const size_t channels = input[first_spatial - 1];
    const size_t batch = first_spatial == 2 ? input[0] : 1;
    static_cast<InstanceNormState*>(state)->channels = channels;
    // Each channel is a group of its own: plane o has channel o % C; (N, C, L) or (C, L) are
    // stored as slices of C x L column-major, so channels are the lanes.
    size_t positions = 1;
    for (size_t d = first_spatial; d < rank; ++d) positions *= input[d];
    state->LayOutChannelGroups(batch, channels, /*per_group=*/1, positions, spatial >= 2);
  }

  // Normalises every channel of every sample (or applies the running statistics).
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const InstanceNormState& state = context.state_as<InstanceNormState>();
    if (!running_scale_.empty()) {
      ApplyRunningStatistics(state, inputs[0]->data(), outputs[0]->data());
      return;
    }
    NormalizationLayer::Forward(inputs, outputs, context);
  }

 private:
  // y = x * scale[c] + shift[c] with the layout of `state` (planes or lanes).
  void ApplyRunningStatistics(const InstanceNormState& state, const float* x, float* y) const {
    const NormalizationGroups& groups = state.groups;
    for (size_t o = 0; o < groups.outer; ++o) {
      for (size_t e = 0; e < groups.extent; ++e) {
        const size_t base = (o * groups.extent + e) * groups.inner;
        for (size_t i = 0; i < groups.inner; ++i) {
          const size_t channel = groups.inner == 1 ? o % state.channels : i;
          y[base + i] = x[base + i] * running_scale_[channel] + running_shift_[channel];
        }
      }
    }
  }

  int spatial_rank_;                  // 0 for F.instance_norm and lumen.InstanceNorm
  bool functional_;                   // F.instance_norm: weight and bias are operands
  int features_;                      // -1 when the file does not say
  size_t operand_count_ = 1;          // F.instance_norm: inputs, running statistics included
  std::vector<float> running_scale_;  // empty unless track_running_stats
  std::vector<float> running_shift_;
};

}  // namespace

LUMEN_REGISTER_LAYER(InstanceNorm, "nn.InstanceNorm1d", "nn.InstanceNorm2d", "nn.InstanceNorm3d",
                     "lumen.InstanceNorm", "F.instance_norm");

}  // namespace lumen
