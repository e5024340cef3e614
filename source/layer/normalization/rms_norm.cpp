// nn.RMSNorm / F.rms_norm: x / sqrt(mean(x^2) + eps) * weight, the mean taken over the last
// len(normalized_shape) dimensions; eps None means torch.finfo(float32).eps. The arithmetic is the
// shared normalisation kernel (kernel/normalization.hpp).
#include <limits>

#include "layer/layer_registry.hpp"
#include "layer/normalization/normalization.hpp"

namespace lumen {
namespace {

// nn.RMSNorm's weight when the module has one (pnnx writes elementwise_affine=False even then,
// since it asks for a bias RMSNorm never has, so the attribute decides); for F.rms_norm an operand
// or None.
AffineParameters RmsNormWeight(const LayerConfig& config, const Shape& normalized_shape) {
  AffineParameters affine;
  if (config.type() == "F.rms_norm") {
    size_t next_input = 1;
    affine.weight = WeightParameter::FromFunctionArgument(config, "weight", &next_input);
  } else if (config.HasAttribute("weight")) {
    affine.weight = WeightParameter::FromAttribute(config, "weight", normalized_shape);
  }
  return affine;
}

// Root-mean-square normalisation over the trailing dimensions.
class RmsNorm : public TrailingNormalization {
 public:
  explicit RmsNorm(const LayerConfig& config) : RmsNorm(config, NormalizedShapeParam(config)) {}

 private:
  RmsNorm(const LayerConfig& config, const Shape& normalized_shape)
      : TrailingNormalization(config, normalized_shape,
                              {NormalizationStatistic::kRootMeanSquare,
                               EpsParam(config, std::numeric_limits<float>::epsilon(),
                                        std::numeric_limits<float>::epsilon())},
                              RmsNormWeight(config, normalized_shape)) {}
};

}  // namespace

LUMEN_REGISTER_LAYER(RmsNorm, "nn.RMSNorm", "F.rms_norm");

}  // namespace lumen
