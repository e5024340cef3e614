// lumen.ChannelLayerNorm: nn.LayerNorm over the channels of an (N, C, *spatial) tensor, that is
// permute(0,2,3,1) -> nn.LayerNorm(C) -> permute(0,3,1,2) without the two permutes. No model file
// contains it: the channels-first pass (passes/channels_first_blocks.cpp) puts it where it finds
// that chain (nn.LayerNorm's ChannelsFirstForm makes it). Parameters and weights are the
// nn.LayerNorm's (eps, elementwise_affine, normalized_shape = (C), weight and bias of C values).
//
// In memory each channel of a sample is a contiguous plane, so one group (one pixel's C values)
// lies a plane apart: the shared kernel's "lanes" layout, which walks every plane contiguously.
#include <utility>

#include "layer/layer_registry.hpp"
#include "layer/normalization/normalization.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// Layer normalisation over dimension 1 of a rank-3-or-more input.
class ChannelLayerNorm : public NormalizationLayer {
 public:
  explicit ChannelLayerNorm(const LayerConfig& config)
      : NormalizationLayer(config,
                           {NormalizationStatistic::kStandardize, EpsParam(config, 1e-5f, 1e-5f)}) {
    const Shape normalized_shape = NormalizedShapeParam(config);
    if (normalized_shape.size() != 1) {
      Fail(Concat("normalized_shape must be one channel count, got ",
                  ShapeToString(normalized_shape)));
    }
    channels_ = normalized_shape[0];
    set_affine(LayerNormAffine(config, normalized_shape));
  }

  // The layer MakeChannelLayerNorm makes, named by `config` (its type and name only).
  ChannelLayerNorm(const LayerConfig& config, uint32_t channels, float eps, AffineParameters affine)
      : NormalizationLayer(config, {NormalizationStatistic::kStandardize, eps}, std::move(affine)),
        channels_(channels) {}

  // (channels), once the input is (N, channels, H, W).
  Shape AffineShape(const Shape& input) const override {
    if (input.size() != 4 || input[1] != channels_) {
      Fail(
          Concat("expected an input of shape (N,", channels_, ",H,W), got ", ShapeToString(input)));
    }
    return {channels_};
  }

  // Group (n, pixel) holds the C values at memory (n * C + c) * H * W + pixel.
  void LayOutGroups(const Shape& input, NormalizationState* state) const override {
    state->groups = {input[0], input[1], static_cast<size_t>(input[2]) * input[3], 1};
    state->affine.extent_step = 1;
  }

 private:
  uint32_t channels_ = 0;
};

}  // namespace

std::unique_ptr<Layer> MakeChannelLayerNorm(const std::string& name, uint32_t channels, float eps,
                                            AffineParameters affine) {
  Node node;
  node.type = "lumen.ChannelLayerNorm";
  node.name = name;
  return std::make_unique<ChannelLayerNorm>(LayerConfig(node), channels, eps, std::move(affine));
}

LUMEN_REGISTER_LAYER(ChannelLayerNorm, "lumen.ChannelLayerNorm");

}  // namespace lumen
