// What the quantised layers' tests share: an operator quantised from float weights as
// lumen_quantize would write it, the float tensors its quantisation stands for, and running a
// layer with an activation fused.
#ifndef LUMEN_TEST_LAYER_QUANTIZED_QUANTIZED_TESTING_HPP_
#define LUMEN_TEST_LAYER_QUANTIZED_QUANTIZED_TESTING_HPP_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "graph/node.hpp"
#include "layer/layer_config.hpp"
#include "layer/layer_registry.hpp"
#include "math/int8_gemm.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace test_support {

// A float layer's weights quantised per output channel, and what they stand for.
struct QuantizedLayerWeights {
  std::vector<int8_t> values;
  std::vector<float> scales;
  std::vector<float> dequantized;  // scales[j] * values: the weights the int8 GEMM multiplies
};

// Quantises `weights` (shape[0] output channels, the rest one channel's weights) symmetrically
// per channel, as lumen_quantize does.
inline QuantizedLayerWeights QuantizeLayerWeights(const std::vector<float>& weights,
                                                  const std::vector<int>& shape) {
  QuantizedLayerWeights quantized;
  const int channels = shape[0];
  const int depth = static_cast<int>(weights.size()) / channels;
  QuantizeWeightsPerChannel(weights.data(), channels, depth, &quantized.values, &quantized.scales);
  quantized.dequantized.resize(weights.size());
  for (size_t i = 0; i < weights.size(); ++i) {
    quantized.dequantized[i] = quantized.scales[i / depth] * quantized.values[i];
  }
  return quantized;
}

// The input quantisation lumen_quantize would choose from `values`' range (min/max calibration).
inline Uint8Quantization QuantizationOfRange(const std::vector<float>& values) {
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  return ChooseUint8Quantization(*low, *high);
}

// `values` quantised and dequantised: the input the int8 GEMM sees, as floats.
inline std::vector<float> DequantizedInput(const std::vector<float>& values,
                                           const Uint8Quantization& quantization) {
  std::vector<uint8_t> quantized(values.size());
  QuantizeToUint8(values.data(), values.size(), quantization, quantized.data());
  std::vector<float> result(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    result[i] = quantization.scale * (static_cast<int>(quantized[i]) - quantization.zero_point);
  }
  return result;
}

// The quantised operator `type` (lumen.QuantizedConv2d, lumen.QuantizedLinear) with the float
// layer's `params`, the int8 weights of `shape`, their scales, the input quantisation and, when
// not empty, a float bias.
inline Node QuantizedOperator(const std::string& type, std::vector<std::string> params,
                              const std::vector<int>& shape, const QuantizedLayerWeights& weights,
                              const Uint8Quantization& input, const std::vector<float>& bias) {
  params.push_back(bias.empty() ? "bias=False" : "bias=True");
  std::map<std::string, Weight> attributes = {
      {"weight_scales", {{static_cast<int>(weights.scales.size())}, weights.scales}}};
  if (!bias.empty()) attributes["bias"] = {{static_cast<int>(bias.size())}, bias};
  Node op = MakeOperator(type, params, attributes);
  op.params["input_scale"] = Parameter::FromFloat(input.scale);
  op.params["input_zero_point"] = Parameter::FromInt(input.zero_point);
  Attribute& weight = op.attributes["weight"];
  weight.type = DataType::kInt8;
  weight.shape = shape;
  weight.data.resize(weights.values.size());
  std::memcpy(weight.data.data(), weights.values.data(), weights.values.size());
  return op;
}

// Builds the layer for `op`, fuses `activation` into it (which it must accept) and runs it on
// `input` on `threads` threads.
inline Tensor RunWithActivation(const Node& op, const Activation& activation, const Tensor& input,
                                int threads = 1) {
  std::unique_ptr<Layer> layer = LayerRegistry::Create(LayerConfig(op));
  EXPECT_TRUE(layer->FuseActivation(activation)) << op.type;
  const std::vector<Shape> output_shapes = layer->OutputShapes({input.shape()});
  TestContext context(threads);
  std::unique_ptr<LayerState> state =
      layer->Prepare({input.shape()}, output_shapes, context.prepare());
  Tensor output(output_shapes[0]);
  layer->Forward({&input}, {&output}, ForwardContext{context.compute(), state.get()});
  return output;
}

}  // namespace test_support
}  // namespace lumen

#endif  // LUMEN_TEST_LAYER_QUANTIZED_QUANTIZED_TESTING_HPP_
