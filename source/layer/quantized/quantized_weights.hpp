// What lumen.QuantizedConv2d and lumen.QuantizedLinear read alike from a quantised model: the
// input's per-tensor quantisation and the int8 weights with their per-channel scales.
//
// The format (also in course/pnnx-format.md): the parameters of nn.Conv2d / nn.Linear, plus
//   input_scale=FLOAT        the input's scale s, positive and finite
//   input_zero_point=INT     its zero point z in 0..255: x is quantised to clamp(round(x/s)+z)
// and the attributes
//   @weight=(...)i8          the weights quantised symmetrically per output channel, in the shape
//                            of the fp32 weight: w = weight_scales[j] * q
//   @weight_scales=(out)f32  one positive finite scale per output channel
//   @bias=(out)f32           when bias=True, in float as nn.Conv2d's
#ifndef LUMEN_LAYER_QUANTIZED_QUANTIZED_WEIGHTS_HPP_
#define LUMEN_LAYER_QUANTIZED_QUANTIZED_WEIGHTS_HPP_

#include <cstdint>
#include <vector>

#include "layer/layer_config.hpp"
#include "math/activation.hpp"
#include "math/int8_gemm.hpp"

namespace lumen {

// Reads input_scale and input_zero_point; throws lumen::Error naming the operator for a scale
// that is not positive and finite or a zero point outside 0..255.
Uint8Quantization ReadInputQuantization(const LayerConfig& config);

// The int8 weights as stored (PyTorch's row-major order) and one scale per output channel.
struct QuantizedWeights {
  std::vector<int8_t> values;
  std::vector<float> scales;
};

// Reads @weight, which must be i8 with as many values as `shape` (the fp32 weight's shape the
// parameters give; shape[0] output channels), and @weight_scales (shape[0] positive finite
// floats); throws lumen::Error naming the operator otherwise.
QuantizedWeights ReadQuantizedWeights(const LayerConfig& config, const std::vector<int>& shape);

// What lumen.QuantizedConv2d and lumen.QuantizedLinear do alike at their float edges, and hand
// Int8Gemm: the input's quantisation on the way in; the bias and the fused activation on the way
// out, applied as the GEMM dequantises its sums.
class QuantizedEdges {
 public:
  // No quantisation read yet (a layer's member before its constructor body).
  QuantizedEdges() = default;
  // Reads input_scale and input_zero_point (as ReadInputQuantization), and @bias of `outputs`
  // floats when bias=True.
  QuantizedEdges(const LayerConfig& config, int outputs);
  // Takes `activation` for the GEMM's epilogue unless one is fused already: what the layers'
  // FuseActivation answers.
  bool FuseActivation(const Activation& activation);

  // The input's per-tensor quantisation.
  const Uint8Quantization& input() const { return input_; }
  // The bias from output channel `first` on, or null without bias.
  const float* bias(size_t first = 0) const {
    return bias_.empty() ? nullptr : bias_.data() + first;
  }
  // The fused activation (none by default).
  const Activation& activation() const { return activation_; }

 private:
  Uint8Quantization input_;
  std::vector<float> bias_;  // empty without bias
  Activation activation_;
  bool activation_fused_ = false;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_QUANTIZED_QUANTIZED_WEIGHTS_HPP_
