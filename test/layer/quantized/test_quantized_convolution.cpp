// lumen.QuantizedConv2d against nn.Conv2d: to float rounding against the float convolution of the
// dequantised weights and input (what the int8 GEMM computes exactly), and within the derived
// quantisation error against the float convolution of the original weights; every load-time
// refusal with its message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "layer/quantized/quantized_testing.hpp"
#include "lumen/error.hpp"
#include "support/case_runner.hpp"
#include "support/kernel_testing.hpp"
#include "support/scoped_environment.hpp"

namespace lumen {
namespace {

using test_support::DequantizedInput;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::QuantizationOfRange;
using test_support::QuantizedLayerWeights;
using test_support::QuantizedOperator;
using test_support::QuantizeLayerWeights;
using test_support::RandomValues;
using test_support::RunLayer;
using test_support::RunWithActivation;
using test_support::ScopedEnvironment;
using ::testing::HasSubstr;

// One convolution's geometry and input.
struct Geometry {
  int in_channels, out_channels, kernel_h, kernel_w;
  int stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0, dilation_h = 1, dilation_w = 1;
  int groups = 1;
  Shape input = {};
};

// nn.Conv2d's parameters for `g`, without bias.
std::vector<std::string> ConvolutionParams(const Geometry& g) {
  const auto pair = [](const char* key, int a, int b) { return Concat(key, "=(", a, ",", b, ")"); };
  return {Concat("in_channels=", g.in_channels),
          Concat("out_channels=", g.out_channels),
          pair("kernel_size", g.kernel_h, g.kernel_w),
          pair("stride", g.stride_h, g.stride_w),
          pair("padding", g.pad_h, g.pad_w),
          pair("dilation", g.dilation_h, g.dilation_w),
          Concat("groups=", g.groups)};
}

// The weight shape of `g`.
std::vector<int> WeightShape(const Geometry& g) {
  return {g.out_channels, g.in_channels / g.groups, g.kernel_h, g.kernel_w};
}

// nn.Conv2d of `g` with these weights (and bias, when not empty) on `input`.
std::vector<float> FloatConvolution(const Geometry& g, const std::vector<float>& weights,
                                    const std::vector<float>& bias, const std::vector<float>& input,
                                    const Activation* activation = nullptr) {
  std::vector<std::string> params = ConvolutionParams(g);
  params.push_back(bias.empty() ? "bias=False" : "bias=True");
  std::map<std::string, test_support::Weight> attributes = {{"weight", {WeightShape(g), weights}}};
  if (!bias.empty()) attributes["bias"] = {{g.out_channels}, bias};
  const Node op = MakeOperator("nn.Conv2d", params, attributes);
  const Tensor tensor = Tensor::FromRowMajor(input, g.input);
  if (activation != nullptr) {
    return test_support::RunWithActivation(op, *activation, tensor).ToRowMajor();
  }
  return RunLayer(op, {tensor})[0].ToRowMajor();
}

// |values|, element by element.
std::vector<float> Absolute(std::vector<float> values) {
  for (float& value : values) value = std::fabs(value);
  return values;
}

// The values a form computes exactly (up to the float sums' rounding): the int8 GEMM's (or the
// Winograd's) are the dequantised weights times the quantised and dequantised input; the float
// form's the dequantised weights times the input itself. kNone: check the quantisation bound only
// (whichever form the CPU chose).
enum class Reference { kNone, kInt8, kWeightsOnly };

void ExpectMatchesFloatConvolutionOnce(const Geometry& g, int threads, const Activation* activation,
                                       Reference reference);

// Runs the quantised convolution of `g` on random weights, bias and input (in [-1, 2]: an
// asymmetric range, so the zero point is not 0 or 128) with `activation` fused when given, and
// checks it against fp32 within the quantisation error: as the layer chooses to compute it on this
// CPU, and in each form forced by LUMEN_QUANTIZED_KERNELS (=int8: the int8 GEMM even where this
// CPU has the layer use another form; =winograd: the integer Winograd wherever it applies;
// =float: the fp32 convolution of the dequantised weights), each forced form also against the
// values it computes exactly, so that every form runs on every machine.
void ExpectMatchesFloatConvolution(const Geometry& g, int threads,
                                   const Activation* activation = nullptr) {
  for (const char* kernels : {static_cast<const char*>(nullptr), "int8", "winograd", "float"}) {
    SCOPED_TRACE(Concat("LUMEN_QUANTIZED_KERNELS=", kernels == nullptr ? "(unset)" : kernels));
    ScopedEnvironment environment("LUMEN_QUANTIZED_KERNELS", kernels);
    const Reference reference = kernels == nullptr                ? Reference::kNone
                                : std::string(kernels) == "float" ? Reference::kWeightsOnly
                                                                  : Reference::kInt8;
    ExpectMatchesFloatConvolutionOnce(g, threads, activation, reference);
  }
}

void ExpectMatchesFloatConvolutionOnce(const Geometry& g, int threads, const Activation* activation,
                                       Reference reference) {
  SCOPED_TRACE(Concat("input ", ShapeToString(g.input), " kernel ", g.kernel_h, "x", g.kernel_w,
                      " groups ", g.groups, " threads ", threads));
  std::mt19937 generator(7);
  const std::vector<int> shape = WeightShape(g);
  const size_t weight_count = static_cast<size_t>(shape[0]) * shape[1] * shape[2] * shape[3];
  const std::vector<float> weights = RandomValues(weight_count, &generator);
  const std::vector<float> bias = RandomValues(g.out_channels, &generator);
  const std::vector<float> input = RandomValues(ShapeElementCount(g.input), &generator, -1, 2);
  const QuantizedLayerWeights quantized = QuantizeLayerWeights(weights, shape);
  const Uint8Quantization input_quantization = QuantizationOfRange(input);
  const Node op = QuantizedOperator("lumen.QuantizedConv2d", ConvolutionParams(g), shape, quantized,
                                    input_quantization, bias);
  const Tensor input_tensor = Tensor::FromRowMajor(input, g.input);
  const std::vector<float> got =
      activation != nullptr ? RunWithActivation(op, *activation, input_tensor, threads).ToRowMajor()
                            : RunLayer(op, {input_tensor}, threads)[0].ToRowMajor();

  // What the form computes exactly, in float: only the float sums' rounding differs.
  const std::vector<float> dequantized_input = DequantizedInput(input, input_quantization);
  const std::vector<float> exact = FloatConvolution(
      g, quantized.dequantized, bias,
      reference == Reference::kWeightsOnly ? input : dequantized_input, activation);
  const std::vector<float> fp32 = FloatConvolution(g, weights, bias, input, activation);
  // sum |w'| |x'| per output: the size of the terms the float sums round.
  const std::vector<float> magnitude =
      FloatConvolution(g, Absolute(quantized.dequantized), {}, Absolute(dequantized_input));
  // The quantisation error: w x - w' x' = w (x - x') + (w - w') x', with |x - x'| <= scale / 2
  // and |w - w'| <= scale_j / 2, so |error| <= sum |w| scale / 2 + scale_j / 2 sum |x'| (the
  // first over every tap, padding included: an overestimate there). ReLU only shrinks it.
  const std::vector<float> half_step(input.size(), input_quantization.scale / 2);
  std::vector<float> half_weight_steps(weight_count);
  for (size_t i = 0; i < weight_count; ++i) {
    half_weight_steps[i] = quantized.scales[i / (weight_count / g.out_channels)] / 2;
  }
  const std::vector<float> weight_error = FloatConvolution(g, Absolute(weights), {}, half_step);
  const std::vector<float> input_error =
      FloatConvolution(g, half_weight_steps, {}, Absolute(dequantized_input));
  ASSERT_EQ(got.size(), exact.size());
  float largest_error = 0;
  float largest_output = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const float rounding = 1e-5f * (magnitude[i] + 1);  // |bias| <= 1
    if (reference != Reference::kNone) {
      ASSERT_NEAR(got[i], exact[i], rounding) << "against the exact reference at " << i;
    }
    ASSERT_NEAR(got[i], fp32[i], weight_error[i] + input_error[i] + rounding)
        << "against fp32 at " << i;
    largest_error = std::max(largest_error, std::fabs(got[i] - fp32[i]));
    largest_output = std::max(largest_output, std::fabs(fp32[i]));
  }
  // The bound is not vacuous: 8 bits keep the answers within a percent or two of the range.
  EXPECT_LT(largest_error, 0.03f * largest_output);
}

TEST(QuantizedConvolution, Matches3x3Padded) {
  Geometry g{8, 16, 3, 3};
  g.pad_h = g.pad_w = 1;
  g.input = {2, 8, 10, 12};
  ExpectMatchesFloatConvolution(g, 1);
  ExpectMatchesFloatConvolution(g, 2);
}

TEST(QuantizedConvolution, MatchesPointwise) {
  Geometry g{16, 8, 1, 1};
  g.input = {1, 16, 7, 9};
  ExpectMatchesFloatConvolution(g, 1);
  ExpectMatchesFloatConvolution(g, 2);
}

TEST(QuantizedConvolution, MatchesPointwiseStrided) {
  Geometry g{16, 8, 1, 1};
  g.stride_h = g.stride_w = 2;
  g.input = {16, 9, 9};  // no batch dimension
  ExpectMatchesFloatConvolution(g, 1);
}

TEST(QuantizedConvolution, MatchesStridedDilated) {
  Geometry g{6, 10, 3, 3};
  g.stride_h = g.stride_w = 2;
  g.pad_h = g.pad_w = 2;
  g.dilation_h = g.dilation_w = 2;
  g.input = {2, 6, 13, 11};
  ExpectMatchesFloatConvolution(g, 2);
}

// A strided layer with more output channels (40) than the geometries above, as a network's
// downsampling layers have.
TEST(QuantizedConvolution, MatchesAWiderStridedLayer) {
  Geometry g{8, 40, 3, 3};
  g.stride_h = g.stride_w = 2;
  g.pad_h = g.pad_w = 1;
  g.input = {1, 8, 12, 10};
  ExpectMatchesFloatConvolution(g, 1);
  ExpectMatchesFloatConvolution(g, 2);
}

TEST(QuantizedConvolution, MatchesAsymmetricWindow) {
  Geometry g{5, 7, 5, 3};
  g.stride_h = 2;
  g.stride_w = 1;
  g.pad_h = 2;
  g.pad_w = 0;
  g.dilation_w = 2;
  g.input = {1, 5, 12, 15};
  ExpectMatchesFloatConvolution(g, 1);
}

TEST(QuantizedConvolution, MatchesGrouped) {
  Geometry g{8, 6, 3, 3};
  g.groups = 2;
  g.pad_h = g.pad_w = 1;
  g.input = {2, 8, 6, 7};
  ExpectMatchesFloatConvolution(g, 2);
  Geometry pointwise{8, 12, 1, 1};
  pointwise.groups = 4;
  pointwise.input = {1, 8, 5, 5};
  ExpectMatchesFloatConvolution(pointwise, 1);
}

TEST(QuantizedConvolution, MatchesDepthwise) {
  Geometry g{4, 4, 3, 3};
  g.groups = 4;
  g.pad_h = g.pad_w = 1;
  g.input = {1, 4, 8, 8};
  ExpectMatchesFloatConvolution(g, 1);
}

TEST(QuantizedConvolution, FusesRelu) {
  Geometry g{8, 16, 3, 3};
  g.pad_h = g.pad_w = 1;
  g.input = {1, 8, 9, 9};
  Activation relu;
  relu.kind = Activation::Kind::kRelu;
  ExpectMatchesFloatConvolution(g, 1, &relu);
  Geometry pointwise{16, 8, 1, 1};
  pointwise.input = {1, 16, 5, 6};
  ExpectMatchesFloatConvolution(pointwise, 2, &relu);
}

TEST(QuantizedConvolution, FusesOneActivationOnly) {
  Geometry g{2, 2, 1, 1};
  const std::vector<int> shape = WeightShape(g);
  const QuantizedLayerWeights weights = QuantizeLayerWeights({1, 2, 3, 4}, shape);
  const Node op = QuantizedOperator("lumen.QuantizedConv2d", ConvolutionParams(g), shape, weights,
                                    {0.1f, 10}, {});
  std::unique_ptr<Layer> layer = LayerRegistry::Create(LayerConfig(op));
  Activation relu;
  relu.kind = Activation::Kind::kRelu;
  EXPECT_TRUE(layer->FuseActivation(relu));
  EXPECT_FALSE(layer->FuseActivation(relu));
}

// The error building the 4 -> 4 3x3 quantised convolution gets once `change` edits its operator.
template <typename Change>
std::string ErrorAfter(Change change) {
  Geometry g{4, 4, 3, 3};
  g.pad_h = g.pad_w = 1;
  const std::vector<int> shape = WeightShape(g);
  std::mt19937 generator(3);
  const QuantizedLayerWeights weights =
      QuantizeLayerWeights(RandomValues(4 * 4 * 9, &generator), shape);
  Node op = QuantizedOperator("lumen.QuantizedConv2d", ConvolutionParams(g), shape, weights,
                              {0.05f, 20}, std::vector<float>(4, 0.5f));
  change(op);
  return LayerError(op, {{1, 4, 6, 6}});
}

TEST(QuantizedConvolution, AcceptsTheUnchangedOperator) {
  EXPECT_EQ(ErrorAfter([](Node&) {}), "");
}

TEST(QuantizedConvolution, RefusesBadInputScales) {
  for (float scale : {0.0f, -0.5f, std::numeric_limits<float>::quiet_NaN(),
                      std::numeric_limits<float>::infinity()}) {
    EXPECT_THAT(
        ErrorAfter([&](Node& op) { op.params["input_scale"] = Parameter::FromFloat(scale); }),
        HasSubstr("lumen.QuantizedConv2d 'op': input_scale must be positive and finite"))
        << scale;
  }
}

TEST(QuantizedConvolution, RefusesZeroPointsOutsideTheBytes) {
  for (int zero_point : {-1, 256}) {
    EXPECT_THAT(ErrorAfter([&](Node& op) {
                  op.params["input_zero_point"] = Parameter::FromInt(zero_point);
                }),
                HasSubstr(Concat("input_zero_point must be in 0..255, got ", zero_point)));
  }
}

TEST(QuantizedConvolution, RefusesBadWeightScales) {
  for (float scale : {0.0f, -1.0f, std::numeric_limits<float>::quiet_NaN(),
                      -std::numeric_limits<float>::infinity()}) {
    EXPECT_THAT(ErrorAfter([&](Node& op) {
                  float* scales =
                      reinterpret_cast<float*>(op.attributes["weight_scales"].data.data());
                  scales[2] = scale;
                }),
                HasSubstr("@weight_scales[2] must be positive and finite"))
        << scale;
  }
}

TEST(QuantizedConvolution, RefusesWeightsOfAnotherSize) {
  EXPECT_THAT(ErrorAfter([](Node& op) {
                Attribute& weight = op.attributes["weight"];
                weight.shape = {4, 4, 3, 2};
                weight.data.resize(4 * 4 * 3 * 2);
              }),
              HasSubstr("@weight holds 96 int8 values (declared (4,4,3,2)), expected 144 for the "
                        "shape (4,4,3,3) the parameters give"));
  // Groups change the shape the parameters give: 4 / 2 inputs per output channel.
  EXPECT_THAT(ErrorAfter([](Node& op) { op.params["groups"] = Parameter::FromInt(2); }),
              HasSubstr("expected 72 for the shape (4,2,3,3)"));
}

TEST(QuantizedConvolution, RefusesFloatWeights) {
  EXPECT_THAT(ErrorAfter([](Node& op) {
                Attribute& weight = op.attributes["weight"];
                weight.type = DataType::kFloat32;
                weight.data.resize(weight.data.size() * 4);
              }),
              HasSubstr("@weight must be i8 (a quantised model's weights), got f32"));
}

TEST(QuantizedConvolution, RefusesWhatItDoesNotCompute) {
  EXPECT_THAT(ErrorAfter([](Node& op) { op.params["groups"] = Parameter::FromInt(3); }),
              HasSubstr("must be positive multiples of groups 3"));
  EXPECT_THAT(
      ErrorAfter([](Node& op) { op.params["padding_mode"] = Parameter::FromString("reflect"); }),
      HasSubstr("padding_mode reflect is not supported (only zeros)"));
  EXPECT_THAT(ErrorAfter([](Node& op) { op.params.erase("input_scale"); }),
              HasSubstr("input_scale"));
}

TEST(QuantizedConvolution, RefusesInputsOfTheWrongShape) {
  Geometry g{4, 4, 3, 3};
  const std::vector<int> shape = WeightShape(g);
  const QuantizedLayerWeights weights =
      QuantizeLayerWeights(std::vector<float>(4 * 4 * 9, 0.5f), shape);
  const Node op = QuantizedOperator("lumen.QuantizedConv2d", ConvolutionParams(g), shape, weights,
                                    {0.05f, 20}, {});
  EXPECT_THAT(LayerError(op, {{1, 3, 6, 6}}),
              HasSubstr("expected an input of shape (N,4,H,W) or (4,H,W), got (1,3,6,6)"));
  EXPECT_THAT(LayerError(op, {{1, 4, 2, 6}}), HasSubstr("does not fit in the input"));
}

}  // namespace
}  // namespace lumen
