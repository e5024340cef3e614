// nn.BatchNorm2d in inference mode against PyTorch, on batches and other sizes, and its errors.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

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

LUMEN_LAYER_CASE_TEST(BatchNorm, batchnorm_batch3)
LUMEN_LAYER_CASE_TEST(BatchNorm, batchnorm_eps)
LUMEN_LAYER_CASE_TEST(BatchNorm, batchnorm_no_affine)
LUMEN_LAYER_CASE_TEST(BatchNorm, batchnorm1d_rank2)
LUMEN_LAYER_CASE_TEST(BatchNorm, batchnorm1d_rank3_no_affine)
LUMEN_LAYER_CASE_TEST(BatchNorm, batchnorm3d_batch2)

// BatchNorm2d over 3 channels with the given statistics and affine weights.
Node BatchNorm3(const std::vector<float>& mean, const std::vector<float>& variance,
                const std::vector<float>& weight, const std::vector<float>& bias) {
  return MakeOperator("nn.BatchNorm2d", {"num_features=3", "eps=1e-5", "affine=True"},
                      {{"running_mean", {{3}, mean}},
                       {"running_var", {{3}, variance}},
                       {"weight", {{3}, weight}},
                       {"bias", {{3}, bias}}});
}

TEST(BatchNorm, InfersTheShapeForAnyBatchAndSize) {
  const Node op = BatchNorm3({0, 0, 0}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0});
  EXPECT_EQ(InferShapes(op, {{7, 3, 2, 41}}), std::vector<Shape>({{7, 3, 2, 41}}));
}

// Every plane of a batch large enough to be split over 3 threads, against the formula.
TEST(BatchNorm, NormalisesEveryPlaneOfABatch) {
  const std::vector<float> mean{0.1f, -0.2f, 0.3f}, variance{0.5f, 1.5f, 1.0f};
  const std::vector<float> weight{1.2f, 0.7f, -1.0f}, bias{0.05f, -0.1f, 0.2f};
  const Shape shape{2, 3, 64, 65};
  std::mt19937 generator(31);
  const std::vector<float> values = RandomValues(ShapeElementCount(shape), &generator);
  std::vector<float> expected(values.size());
  const size_t area = 64 * 65;
  for (size_t i = 0; i < values.size(); ++i) {
    const size_t channel = i / area % 3;
    expected[i] =
        (values[i] - mean[channel]) / std::sqrt(variance[channel] + 1e-5f) * weight[channel] +
        bias[channel];
  }
  const std::vector<Tensor> outputs =
      RunLayer(BatchNorm3(mean, variance, weight, bias), {Tensor::FromRowMajor(values, shape)}, 3);
  ExpectClose(outputs[0].ToRowMajor(), expected, 1e-6f, 1e-5f, "batch norm of (2,3,64,65)");
}

TEST(BatchNorm, RejectsAnInputWithOtherChannels) {
  const Node op = MakeOperator("nn.BatchNorm2d", {"num_features=3", "eps=1e-5", "affine=False"},
                               {{"running_mean", {{3}, {}}}, {"running_var", {{3}, {1, 1, 1}}}});
  EXPECT_THAT(LayerError(op, {{1, 4, 5, 5}}),
              HasSubstr("expected an input of shape (N,3,H,W), got (1,4,5,5)"));
  EXPECT_THAT(LayerError(op, {{3, 5, 5}}),
              HasSubstr("expected an input of shape (N,3,H,W), got (3,5,5)"));
}

TEST(BatchNorm, RejectsRunningStatisticsOfTheWrongLength) {
  const Node op = MakeOperator("nn.BatchNorm2d", {"num_features=3", "affine=False"},
                               {{"running_mean", {{4}, {}}}, {"running_var", {{3}, {}}}});
  EXPECT_THAT(LayerError(op, {{1, 3, 5, 5}}),
              HasSubstr("weight '@running_mean' has shape (4) but the parameters imply (3)"));
}

}  // namespace
}  // namespace lumen
