// nn.LayerNorm / F.layer_norm against PyTorch: one to three normalised dimensions, batches, ranks 1
// to 4, with and without affine, weight and bias as operands or None, a large mean; against a
// double loop on a size that spreads over threads; shape inference and its errors.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "layer/layer_registry.hpp"
#include "support/case_runner.hpp"
#include "support/kernel_testing.hpp"

namespace lumen {
namespace {

using test_support::ExpectClose;
using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RandomValues;
using test_support::RunLayer;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(LayerNorm, layernorm_rank3_batch2)
LUMEN_LAYER_CASE_TEST(LayerNorm, layernorm_last2_batch3)
LUMEN_LAYER_CASE_TEST(LayerNorm, layernorm_last3_eps)
LUMEN_LAYER_CASE_TEST(LayerNorm, layernorm_noaffine_rank2)
LUMEN_LAYER_CASE_TEST(LayerNorm, layernorm_rank1)
LUMEN_LAYER_CASE_TEST(LayerNorm, layernorm_whole_tensor)
LUMEN_LAYER_CASE_TEST(LayerNorm, layernorm_many_rows)
LUMEN_LAYER_CASE_TEST(LayerNorm, layernorm_large_mean)
LUMEN_LAYER_CASE_TEST(LayerNorm, layernorm_functional)
LUMEN_LAYER_CASE_TEST(LayerNorm, layernorm_functional_weight_only)
LUMEN_LAYER_CASE_TEST(LayerNorm, layernorm_functional_none)

TEST(LayerNorm, IsRegisteredUnderEverySpelling) {
  EXPECT_TRUE(LayerRegistry::Has("nn.LayerNorm"));
  EXPECT_TRUE(LayerRegistry::Has("F.layer_norm"));
}

// LayerNorm over the last `trailing` dimensions of row-major `values`, in double, no affine.
std::vector<float> ReferenceLayerNorm(const std::vector<float>& values, size_t group, float eps) {
  std::vector<float> result(values.size());
  for (size_t start = 0; start < values.size(); start += group) {
    double sum = 0, squares = 0;
    for (size_t k = 0; k < group; ++k) sum += values[start + k];
    const double mean = sum / group;
    for (size_t k = 0; k < group; ++k)
      squares += (values[start + k] - mean) * (values[start + k] - mean);
    const double inverse_std = 1 / std::sqrt(squares / group + eps);
    for (size_t k = 0; k < group; ++k) {
      result[start + k] = static_cast<float>((values[start + k] - mean) * inverse_std);
    }
  }
  return result;
}

// Large enough for several threads and lane blocks, over one and two trailing dimensions.
TEST(LayerNorm, MatchesADoubleLoopOnOneAndTwoThreads) {
  std::mt19937 generator(7);
  const Shape shape{3, 70, 90};
  const std::vector<float> values = RandomValues(ShapeElementCount(shape), &generator, -2, 4);
  for (const auto& [normalized, group] :
       std::vector<std::pair<std::string, size_t>>{{"(90)", 90}, {"(70,90)", 6300}}) {
    const Node op = MakeOperator(
        "F.layer_norm", {"normalized_shape=" + normalized, "eps=1e-5", "weight=None", "bias=None"});
    for (int threads : {1, 2}) {
      const std::vector<Tensor> outputs =
          RunLayer(op, {Tensor::FromRowMajor(values, shape)}, threads);
      ExpectClose(outputs[0].ToRowMajor(), ReferenceLayerNorm(values, group, 1e-5f), 1e-5f, 1e-4f,
                  normalized + " on " + std::to_string(threads) + " threads");
    }
  }
}

TEST(LayerNorm, InfersTheInputShape) {
  const Node op = MakeOperator("nn.LayerNorm",
                               {"normalized_shape=(4,5)", "eps=1e-5", "elementwise_affine=False"});
  EXPECT_EQ(InferShapes(op, {{7, 3, 4, 5}}), std::vector<Shape>({{7, 3, 4, 5}}));
  EXPECT_EQ(InferShapes(op, {{4, 5}}), std::vector<Shape>({{4, 5}}));
}

TEST(LayerNorm, RejectsAnInputThatDoesNotEndInNormalizedShape) {
  const Node op = MakeOperator("nn.LayerNorm",
                               {"normalized_shape=(4,5)", "eps=1e-5", "elementwise_affine=False"});
  EXPECT_THAT(LayerError(op, {{2, 5, 4}}),
              HasSubstr("expected an input whose last dimensions are normalized_shape (4,5), "
                        "got (2,5,4)"));
  EXPECT_THAT(LayerError(op, {{5}}), HasSubstr("got (5)"));
}

TEST(LayerNorm, RejectsBadParametersAndWeights) {
  EXPECT_THAT(
      LayerError(MakeOperator("nn.LayerNorm", {"normalized_shape=(0)", "elementwise_affine=False"}),
                 {{2, 3}}),
      HasSubstr("must be positive"));
  EXPECT_THAT(
      LayerError(MakeOperator("nn.LayerNorm", {"normalized_shape=(3)", "elementwise_affine=True"},
                              {{"weight", {{4}, {}}}, {"bias", {{3}, {}}}}),
                 {{2, 3}}),
      HasSubstr("weight '@weight' has shape (4) but the parameters imply (3)"));
  // F.layer_norm's weight operand must have normalized_shape.
  Node functional = MakeOperator("F.layer_norm", {"normalized_shape=(3)", "bias=None"}, {}, 2);
  EXPECT_THAT(LayerError(functional, {{2, 3}, {2}}),
              HasSubstr("weight must have shape (3), got (2)"));
}

}  // namespace
}  // namespace lumen
