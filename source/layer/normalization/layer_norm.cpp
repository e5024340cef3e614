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
