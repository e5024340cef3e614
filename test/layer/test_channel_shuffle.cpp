// nn.ChannelShuffle against PyTorch.
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

LUMEN_LAYER_CASE_TEST(ChannelShuffle, channel_shuffle_2)
LUMEN_LAYER_CASE_TEST(ChannelShuffle, channel_shuffle_3)

TEST(ChannelShuffle, RejectsChannelsNotDivisibleByGroups) {
  EXPECT_THAT(
      LayerError(MakeOperator("nn.ChannelShuffle", {"groups=4"}), {{1, 6, 2, 2}}, {{1, 6, 2, 2}}),
      HasSubstr("C divisible by groups 4"));
}

}  // namespace
}  // namespace lumen
