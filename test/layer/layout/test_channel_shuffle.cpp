// nn.ChannelShuffle against PyTorch on ranks 3 to 5 and batches, and its errors.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(ChannelShuffle, channel_shuffle_2)
LUMEN_LAYER_CASE_TEST(ChannelShuffle, channel_shuffle_3)
LUMEN_LAYER_CASE_TEST(ChannelShuffle, channel_shuffle_rank3)
LUMEN_LAYER_CASE_TEST(ChannelShuffle, channel_shuffle_rank5)

TEST(ChannelShuffle, InfersTheInputShape) {
  EXPECT_EQ(InferShapes(MakeOperator("nn.ChannelShuffle", {"groups=4"}), {{3, 8, 17, 5}}),
            std::vector<Shape>({{3, 8, 17, 5}}));
}

TEST(ChannelShuffle, RejectsChannelsNotDivisibleByGroups) {
  EXPECT_THAT(LayerError(MakeOperator("nn.ChannelShuffle", {"groups=4"}), {{1, 6, 2, 2}}),
              HasSubstr("with C divisible by groups 4, got (1,6,2,2)"));
}

TEST(ChannelShuffle, RejectsAnInputOfRankBelow3) {
  EXPECT_THAT(LayerError(MakeOperator("nn.ChannelShuffle", {"groups=2"}), {{4, 6}}),
              HasSubstr("expected an (N,C,...) input of rank 3 or more"));
}

}  // namespace
}  // namespace lumen
