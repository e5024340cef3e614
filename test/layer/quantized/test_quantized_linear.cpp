// lumen.QuantizedLinear against nn.Linear: to float rounding against the product of the
// dequantised weights and input (computed here in double), and within the derived quantisation
// error against the nn.Linear layer on the original weights; batch 1 (the GEMM's matrix-vector
// path), batches, leading dimensions; ReLU fused; every load-time refusal with its message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "layer/quantized/quantized_testing.hpp"
#include "lumen/error.hpp"
#include "support/case_runner.hpp"
#include "support/kernel_testing.hpp"

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
using ::testing::HasSubstr;

// nn.Linear's parameters, without bias.
std::vector<std::string> LinearParams(int in_features, int out_features) {
  return {Concat("in_features=", in_features), Concat("out_features=", out_features)};
}

// Runs the quantised Linear (in_features = input.back()) on random weights, bias and input (in
// [-2, 1]) with ReLU fused when `relu`, and checks it against both references.
void ExpectMatchesFloatLinear(const Shape& input_shape, int out_features, int threads, bool relu) {
  SCOPED_TRACE(Concat("input ", ShapeToString(input_shape), " out_features ", out_features,
                      " threads ", threads, relu ? " relu" : ""));
  std::mt19937 generator(11);
  const int in_features = static_cast<int>(input_shape.back());
  const std::vector<int> shape = {out_features, in_features};
  const std::vector<float> weights =
      RandomValues(static_cast<size_t>(out_features) * in_features, &generator);
  const std::vector<float> bias = RandomValues(out_features, &generator);
  const std::vector<float> input = RandomValues(ShapeElementCount(input_shape), &generator, -2, 1);
  const QuantizedLayerWeights quantized = QuantizeLayerWeights(weights, shape);
  const Uint8Quantization input_quantization = QuantizationOfRange(input);
  const Node op =
      QuantizedOperator("lumen.QuantizedLinear", LinearParams(in_features, out_features), shape,
                        quantized, input_quantization, bias);
  const Tensor input_tensor = Tensor::FromRowMajor(input, input_shape);
  Activation activation;
  if (relu) activation.kind = Activation::Kind::kRelu;
  const std::vector<float> got =
      relu ? RunWithActivation(op, activation, input_tensor, threads).ToRowMajor()
           : RunLayer(op, {input_tensor}, threads)[0].ToRowMajor();

  std::vector<std::string> params = LinearParams(in_features, out_features);
  params.push_back("bias=True");
  const Node float_op = MakeOperator(
      "nn.Linear", params, {{"weight", {shape, weights}}, {"bias", {{out_features}, bias}}});
  const std::vector<float> fp32 =
      relu ? RunWithActivation(float_op, activation, input_tensor).ToRowMajor()
           : RunLayer(float_op, {input_tensor})[0].ToRowMajor();

  const std::vector<float> dequantized_input = DequantizedInput(input, input_quantization);
  const size_t rows = input.size() / in_features;
  ASSERT_EQ(got.size(), rows * out_features);
  float largest_error = 0;
  float largest_output = 0;
  for (size_t row = 0; row < rows; ++row) {
    for (int j = 0; j < out_features; ++j) {
      // In double: the exact value of what the int8 GEMM computes, the size of its terms, and
      // the quantisation error bound sum |w| scale / 2 + scale_j / 2 sum |x'|.
      double exact = bias[j];
      double magnitude = 1;
      double bound = 0;
      for (int p = 0; p < in_features; ++p) {
        const size_t w = static_cast<size_t>(j) * in_features + p;
        const double x = dequantized_input[row * in_features + p];
        exact += double{quantized.dequantized[w]} * x;
        magnitude += std::fabs(quantized.dequantized[w] * x);
        bound += std::fabs(weights[w]) * input_quantization.scale / 2 +
                 quantized.scales[j] / 2 * std::fabs(x);
      }
      if (relu) exact = std::max(exact, 0.0);
      const size_t i = row * out_features + j;
      ASSERT_NEAR(got[i], exact, 1e-5 * magnitude) << "against the dequantised reference at " << i;
      ASSERT_NEAR(got[i], fp32[i], bound + 1e-5 * magnitude) << "against fp32 at " << i;
      largest_error = std::max(largest_error, std::fabs(got[i] - fp32[i]));
      largest_output = std::max(largest_output, std::fabs(fp32[i]));
    }
  }
  EXPECT_LT(largest_error, 0.03f * largest_output);  // the bound is not vacuous
}

TEST(QuantizedLinear, MatchesBatchOne) {
  ExpectMatchesFloatLinear({1, 300}, 33, 1, false);
  ExpectMatchesFloatLinear({1, 300}, 33, 2, false);
  ExpectMatchesFloatLinear({64}, 10, 1, false);  // no batch dimension
}

TEST(QuantizedLinear, MatchesBatches) {
  ExpectMatchesFloatLinear({3, 40}, 17, 1, false);
  ExpectMatchesFloatLinear({37, 128}, 70, 2, false);
}

TEST(QuantizedLinear, MatchesLeadingDimensions) {
  ExpectMatchesFloatLinear({2, 5, 24}, 9, 1, false);
  ExpectMatchesFloatLinear({2, 3, 1, 24}, 9, 2, false);
}

TEST(QuantizedLinear, MatchesStackedOneRowSlices) {
  ExpectMatchesFloatLinear({3, 1, 24}, 9, 1, false);  // too few to stack: one product each
  ExpectMatchesFloatLinear({7, 1, 24}, 9, 1, false);
  ExpectMatchesFloatLinear({40, 1, 100}, 33, 2, false);
  ExpectMatchesFloatLinear({2, 10, 1, 16}, 5, 1, true);
}

TEST(QuantizedLinear, FusesRelu) {
  ExpectMatchesFloatLinear({1, 96}, 40, 1, true);
  ExpectMatchesFloatLinear({6, 96}, 40, 2, true);
}

// The error building the 8 -> 3 quantised Linear gets once `change` edits its operator.
template <typename Change>
std::string ErrorAfter(Change change) {
  std::mt19937 generator(5);
  const std::vector<int> shape = {3, 8};
  const QuantizedLayerWeights weights = QuantizeLayerWeights(RandomValues(24, &generator), shape);
  Node op = QuantizedOperator("lumen.QuantizedLinear", LinearParams(8, 3), shape, weights,
                              {0.02f, 128}, {0.5f, -0.5f, 1});
  change(op);
  return LayerError(op, {{2, 8}});
}

TEST(QuantizedLinear, AcceptsTheUnchangedOperator) {
  EXPECT_EQ(ErrorAfter([](Node&) {}), "");
}

TEST(QuantizedLinear, RefusesBadScalesAndZeroPoints) {
  for (float scale : {0.0f, -1e-3f, std::numeric_limits<float>::quiet_NaN(),
                      std::numeric_limits<float>::infinity()}) {
    EXPECT_THAT(
        ErrorAfter([&](Node& op) { op.params["input_scale"] = Parameter::FromFloat(scale); }),
        HasSubstr("lumen.QuantizedLinear 'op': input_scale must be positive and finite"))
        << scale;
    EXPECT_THAT(ErrorAfter([&](Node& op) {
                  reinterpret_cast<float*>(op.attributes["weight_scales"].data.data())[0] = scale;
                }),
                HasSubstr("@weight_scales[0] must be positive and finite"))
        << scale;
  }
  EXPECT_THAT(ErrorAfter([](Node& op) { op.params["input_zero_point"] = Parameter::FromInt(300); }),
              HasSubstr("input_zero_point must be in 0..255, got 300"));
}

TEST(QuantizedLinear, RefusesWeightsOfAnotherSizeOrType) {
  EXPECT_THAT(ErrorAfter([](Node& op) { op.params["in_features"] = Parameter::FromInt(6); }),
              HasSubstr("@weight holds 24 int8 values (declared (3,8)), expected 18 for the "
                        "shape (3,6) the parameters give"));
  EXPECT_THAT(ErrorAfter([](Node& op) {
                Attribute& weight = op.attributes["weight"];
                weight.type = DataType::kUInt8;
              }),
              HasSubstr("@weight must be i8 (a quantised model's weights), got u8"));
}

TEST(QuantizedLinear, RefusesInputsOfTheWrongShape) {
  const std::vector<int> shape = {3, 8};
  const QuantizedLayerWeights weights = QuantizeLayerWeights(std::vector<float>(24, 0.25f), shape);
  const Node op = QuantizedOperator("lumen.QuantizedLinear", LinearParams(8, 3), shape, weights,
                                    {0.02f, 128}, {});
  EXPECT_THAT(LayerError(op, {{2, 7}}), HasSubstr("expected an input of shape (...,8)"));
}

}  // namespace
}  // namespace lumen
