#include "layer/quantized/quantized_weights.hpp"

#include <cmath>
#include <cstring>
#include <string>

#include "lumen/error.hpp"

namespace lumen {
namespace {

// A scale the dequantisation can multiply by: zero would erase the layer, NaN or infinity poison
// every output.
bool UsableScale(float scale) { return std::isfinite(scale) && scale > 0.0f; }

// "(64,3,3,3)".
std::string ShapeText(const std::vector<int>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) text += Concat(i == 0 ? "" : ",", shape[i]);
  return text + ")";
}

}  // namespace

Uint8Quantization ReadInputQuantization(const LayerConfig& config) {
  Uint8Quantization quantization;
  quantization.scale = config.FloatParam("input_scale");
  quantization.zero_point = config.IntParam("input_zero_point");
  if (!UsableScale(quantization.scale)) {
    throw Error(Concat(config.Describe(), ": input_scale must be positive and finite, got ",
                       quantization.scale));
  }
  if (quantization.zero_point < 0 || quantization.zero_point > 255) {
    throw Error(Concat(config.Describe(), ": input_zero_point must be in 0..255, got ",
                       quantization.zero_point));
  }
  return quantization;
}

QuantizedWeights ReadQuantizedWeights(const LayerConfig& config, const std::vector<int>& shape) {
  const Attribute& weight = config.GetAttribute("weight");
  if (weight.type != DataType::kInt8) {
    throw Error(Concat(config.Describe(),
                       ": @weight must be i8 (a quantised model's weights), got ",
                       DataTypeName(weight.type)));
  }
  size_t expected = 1;
  for (int extent : shape) expected *= static_cast<size_t>(extent);
  if (weight.ElementCount() != expected || weight.data.size() != expected) {
    throw Error(Concat(config.Describe(), ": @weight holds ", weight.data.size(),
                       " int8 values (declared ", ShapeText(weight.shape), "), expected ", expected,
                       " for the shape ", ShapeText(shape), " the parameters give"));
  }
  QuantizedWeights weights;
  weights.values.resize(expected);
  if (expected > 0) std::memcpy(weights.values.data(), weight.data.data(), expected);
  weights.scales = config.AttributeFloats("weight_scales", {shape[0]});
  for (size_t channel = 0; channel < weights.scales.size(); ++channel) {
    if (!UsableScale(weights.scales[channel])) {
      throw Error(Concat(config.Describe(), ": @weight_scales[", channel,
                         "] must be positive and finite, got ", weights.scales[channel]));
    }
  }
  return weights;
}

QuantizedEdges::QuantizedEdges(const LayerConfig& config, int outputs)
    : input_(ReadInputQuantization(config)) {
  if (config.BoolParam("bias", false)) bias_ = config.AttributeFloats("bias", {outputs});
}

bool QuantizedEdges::FuseActivation(const Activation& activation) {
  if (activation_fused_) return false;
  activation_ = activation;
  activation_fused_ = true;
  return true;
}

}  // namespace lumen
