// nn.BatchNorm2d in inference mode against PyTorch, and its errors.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::LayerError;
using test_support::MakeOperator;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(BatchNorm, batchnorm_eps)
LUMEN_LAYER_CASE_TEST(BatchNorm, batchnorm_no_affine)

TEST(BatchNorm, RejectsAnInputWithOtherChannels) {
  const RuntimeOperator op =
      MakeOperator("nn.BatchNorm2d", {"num_features=3", "eps=1e-5", "affine=False"},
                   {{"running_mean", {{3}, {}}}, {"running_var", {{3}, {1, 1, 1}}}});
  EXPECT_THAT(LayerError(op, {{1, 4, 5, 5}}, {{1, 4, 5, 5}}),
              HasSubstr("expected input (N,3,H,W) and an output of the same shape"));
}

TEST(BatchNorm, RejectsRunningStatisticsOfTheWrongLength) {
  const RuntimeOperator op =
      MakeOperator("nn.BatchNorm2d", {"num_features=3", "affine=False"},
                   {{"running_mean", {{4}, {}}}, {"running_var", {{3}, {}}}});
  EXPECT_THAT(LayerError(op, {{1, 3, 5, 5}}, {{1, 3, 5, 5}}),
              HasSubstr("weight '@running_mean' has shape (4) but the parameters imply (3)"));
}

}  // namespace
}  // namespace lumen
