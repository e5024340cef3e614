// nn.GroupNorm / F.group_norm against PyTorch on ranks 2 to 5 (each lays its groups out
// differently in memory), one group, one group per channel, no affine, weight and bias operands;
// shape inference and its errors.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "layer/layer_registry.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(GroupNorm, groupnorm_rank4_batch2)
LUMEN_LAYER_CASE_TEST(GroupNorm, groupnorm_rank3_pooled)
LUMEN_LAYER_CASE_TEST(GroupNorm, groupnorm_rank3_per_channel)
LUMEN_LAYER_CASE_TEST(GroupNorm, groupnorm_rank2)
LUMEN_LAYER_CASE_TEST(GroupNorm, groupnorm_rank5_noaffine)
LUMEN_LAYER_CASE_TEST(GroupNorm, groupnorm_one_group)
LUMEN_LAYER_CASE_TEST(GroupNorm, groupnorm_functional)

TEST(GroupNorm, IsRegisteredUnderEverySpelling) {
  EXPECT_TRUE(LayerRegistry::Has("nn.GroupNorm"));
  EXPECT_TRUE(LayerRegistry::Has("F.group_norm"));
}

TEST(GroupNorm, InfersTheInputShape) {
  const Node op = MakeOperator("F.group_norm", {"num_groups=2", "weight=None", "bias=None"});
  EXPECT_EQ(InferShapes(op, {{3, 4, 5, 6}}), std::vector<Shape>({{3, 4, 5, 6}}));
  EXPECT_EQ(InferShapes(op, {{3, 4}}), std::vector<Shape>({{3, 4}}));
}

TEST(GroupNorm, RejectsChannelsNotDivisibleByTheGroups) {
  const Node op = MakeOperator("F.group_norm", {"num_groups=3", "weight=None", "bias=None"});
  EXPECT_THAT(LayerError(op, {{1, 4, 5, 6}}),
              HasSubstr("has 4 channels, not divisible by num_groups 3"));
  EXPECT_THAT(LayerError(op, {{6}}), HasSubstr("expected an input of shape (N,C,*), got (6)"));
  EXPECT_THAT(
      LayerError(MakeOperator("nn.GroupNorm", {"num_groups=2", "num_channels=4", "affine=False"}),
                 {{1, 6, 5}}),
      HasSubstr("expected 4 channels (num_channels), got input (1,6,5)"));
  EXPECT_THAT(LayerError(MakeOperator("nn.GroupNorm", {"num_groups=0", "affine=False"}), {{1, 6}}),
              HasSubstr("num_groups must be positive"));
}

}  // namespace
}  // namespace lumen
