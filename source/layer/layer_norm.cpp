// nn.LayerNorm / F.layer_norm: (x - mean) / sqrt(variance + eps) * weight + bias, with the mean and
// the biased variance taken over the last len(normalized_shape) dimensions. The arithmetic is the
// shared normalisation kernel (kernel/normalization.hpp).
#include "lumen/layer/layer_registry.hpp"
#include "lumen/layer/normalization.hpp"

namespace lumen {
namespace {

// nn.LayerNorm's weight and bias are stored with the model when elementwise_affine is True (newer
// PyTorch may drop the bias alone, bias=False); F.layer_norm's are operands or None.
AffineParameters LayerNormAffine(const LayerConfig& config, const Shape& normalized_shape) {
  if (config.type() == "F.layer_norm") return FunctionAffineArguments(config);
  AffineParameters affine;
  if (!config.BoolParam("elementwise_affine", true)) return affine;
  affine.weight = AffineParameter::FromAttribute(config, "weight", normalized_shape);
  if (config.HasAttribute("bias")) {
    affine.bias = AffineParameter::FromAttribute(config, "bias", normalized_shape);
  }
  return affine;
}

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
