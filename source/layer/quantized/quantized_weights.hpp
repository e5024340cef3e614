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
#include "math/int8_gemm.hpp"

namespace lumen {

// The int8 weights as stored (PyTorch's row-major order) and one scale per output channel.
struct QuantizedWeights {
  std::vector<int8_t> values;
  std::vector<float> scales;
};

// Reads input_scale and input_zero_point; throws lumen::Error naming the operator for a scale
// that is not positive and finite or a zero point outside 0..255.
Uint8Quantization ReadInputQuantization(const LayerConfig& config);

// Reads @weight, which must be i8 with as many values as `shape` (the fp32 weight's shape the
// parameters give; shape[0] output channels), and @weight_scales (shape[0] positive finite
// floats); throws lumen::Error naming the operator otherwise.
QuantizedWeights ReadQuantizedWeights(const LayerConfig& config, const std::vector<int>& shape);

}  // namespace lumen

#endif  // LUMEN_LAYER_QUANTIZED_QUANTIZED_WEIGHTS_HPP_
