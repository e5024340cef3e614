// nn.LayerNorm / F.layer_norm: (x - mean) / sqrt(variance + eps) * weight + bias, with the mean and
// the biased variance taken over the last len(normalized_shape) dimensions. The arithmetic is the
// shared normalisation kernel (kernel/normalization.hpp).
#include "layer/layer_registry.hpp"
#include "layer/normalization/normalization.hpp"

namespace lumen {
namespace {

// Layer normalisation over the trailing dimensions.
class LayerNorm : public TrailingNormalization {
 public:
  explicit LayerNorm(const LayerConfig& config) : LayerNorm(config, NormalizedShapeParam(config)) {}

  // Over one dimension, with stored weights or none, the same per pixel of a channels-last map as
  // lumen.ChannelLayerNorm over the channels of the channels-first map.
  std::unique_ptr<Layer> ChannelsFirstForm() const override {
    const AffineParameters stored = affine();
    if (normalized_shape().size() != 1 || stored.weight.input() >= 0 || stored.bias.input() >= 0) {
      return nullptr;
    }
    return MakeChannelLayerNorm(name(), normalized_shape()[0], spec().eps, stored);
  }

 private:
  LayerNorm(const LayerConfig& config, const Shape& normalized_shape)
      : TrailingNormalization(
            config, normalized_shape,
            {NormalizationStatistic::kStandardize, EpsParam(config, 1e-5f, 1e-5f)},
            LayerNormAffine(config, normalized_shape)) {}
};

}  // namespace

LUMEN_REGISTER_LAYER(LayerNorm, "nn.LayerNorm", "F.layer_norm");

}  // namespace lumen
