// nn.GroupNorm / F.group_norm: the channels of each sample are split into num_groups groups; each
// group (its channels and all their positions) is standardised with its own mean and biased
// variance, then every channel gets its weight and bias. Input (N, C, *), any rank from 2.
#include "layer/layer_registry.hpp"
#include "layer/normalization/normalization.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// Group normalisation.
class GroupNorm : public NormalizationLayer {
 public:
  explicit GroupNorm(const LayerConfig& config)
      : NormalizationLayer(config,
                           {NormalizationStatistic::kStandardize, EpsParam(config, 1e-5f, 1e-5f)}),
        groups_(config.IntParam("num_groups")),
        channels_(config.IntParam("num_channels", -1)) {
    if (groups_ < 1) Fail(Concat("num_groups must be positive, got ", groups_));
    if (channels_ >= 0 && channels_ % groups_ != 0) {
      Fail(Concat("num_channels ", channels_, " is not divisible by num_groups ", groups_));
    }
    if (config.type() == "F.group_norm") {
      set_affine(FunctionAffineArguments(config));
    } else if (config.BoolParam("affine", true)) {
      if (channels_ < 0) channels_ = config.GetAttribute("weight").shape.at(0);
      const Shape shape{static_cast<uint32_t>(channels_)};
      set_affine({WeightParameter::FromAttribute(config, "weight", shape),
                  WeightParameter::FromAttribute(config, "bias", shape)});
    }
  }

  // (C), once the input is (N, C, *) with C divisible by num_groups.
  Shape AffineShape(const Shape& input) const override {
    if (input.size() < 2) {
      Fail(Concat("expected an input of shape (N,C,*), got ", ShapeToString(input)));
    }
    const uint32_t channels = input[1];
    if (channels_ >= 0 && channels != static_cast<uint32_t>(channels_)) {
      Fail(Concat("expected ", channels_, " channels (num_channels), got input ",
                  ShapeToString(input)));
    }
    if (channels % static_cast<uint32_t>(groups_) != 0) {
      Fail(Concat("input ", ShapeToString(input), " has ", channels,
                  " channels, not divisible by num_groups ", groups_));
    }
    return {channels};
  }

  // Lays the groups out for the input's rank (see the comments inside).
  void LayOutGroups(const Shape& input, NormalizationState* state) const override {
    const size_t batch = input[0];
    const size_t channels = input[1];
    const auto groups = static_cast<size_t>(groups_);
    const size_t per_group = channels / groups;
    if (input.size() >= 3) {
      // (N, C, D..., H, W): group o = n * G + g is one contiguous block of planes; (N, C, L):
      // each group pools per_group neighbouring lanes.
      size_t positions = 1;
      for (size_t d = 2; d < input.size(); ++d) positions *= input[d];
      state->LayOutChannelGroups(batch, groups, per_group, positions, input.size() >= 4);
    } else {
      // (N, C) is one N x C matrix stored column-major: channel c of sample n is at
      // c * N + n: group (n, g) is lane n of the per_group rows from g * per_group on.
      state->groups = {groups, per_group, batch, 1};
      state->affine.outer_period = groups;
      state->affine.outer_step = per_group;
      state->affine.extent_step = 1;
    }
  }

 private:
  int groups_;
  int channels_;  // -1 when the file does not say (F.group_norm, nn.GroupNorm without affine)
};

}  // namespace

LUMEN_REGISTER_LAYER(GroupNorm, "nn.GroupNorm", "F.group_norm");

}  // namespace lumen
