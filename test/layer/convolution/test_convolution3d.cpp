// nn.Conv3d and F.conv3d against PyTorch: every padding mode, 'same' and 'valid', stride,
// dilation, groups, no bias, an unbatched input, and weights given as operands; then the errors.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch. The kernels themselves are compared in
// test/kernel/test_convolution_volume.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::LayerError;
using test_support::MakeOperator;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Convolution3d, conv3d_cube)
LUMEN_LAYER_CASE_TEST(Convolution3d, conv3d_strided_padded)
LUMEN_LAYER_CASE_TEST(Convolution3d, conv3d_same_dilated_groups)
LUMEN_LAYER_CASE_TEST(Convolution3d, conv3d_valid)
LUMEN_LAYER_CASE_TEST(Convolution3d, conv3d_depthwise_reflect)
LUMEN_LAYER_CASE_TEST(Convolution3d, conv3d_replicate)
LUMEN_LAYER_CASE_TEST(Convolution3d, conv3d_circular)
LUMEN_LAYER_CASE_TEST(Convolution3d, conv3d_unbatched)
LUMEN_LAYER_CASE_TEST(Convolution3d, conv3d_functional)

// An nn.Conv3d 4 -> 6, kernel 3, groups 2, with its `padding`.
Node Conv3d(const std::string& padding, const std::string& stride = "(1,1,1)") {
  return MakeOperator("nn.Conv3d",
                      {"in_channels=4", "out_channels=6", "kernel_size=(3,3,3)", "groups=2",
                       "padding=" + padding, "stride=" + stride, "bias=False"},
                      {{"weight", {{6, 2, 3, 3, 3}, {}}}});
}

TEST(Convolution3d, InfersTheOutputExtents) {
  EXPECT_EQ(LayerError(Conv3d("(1,0,2)", "(2,1,3)"), {{2, 4, 9, 8, 10}}, {{2, 6, 5, 6, 4}}), "");
  EXPECT_EQ(LayerError(Conv3d("same"), {{4, 5, 6, 7}}, {{6, 5, 6, 7}}), "");
}

TEST(Convolution3d, RejectsAnInputWithOtherChannels) {
  EXPECT_THAT(LayerError(Conv3d("(1,1,1)"), {{1, 3, 5, 5, 5}}),
              HasSubstr("expected an input of shape (N,4,D,H,W) or (4,D,H,W), got (1,3,5,5,5)"));
  EXPECT_THAT(LayerError(Conv3d("(1,1,1)"), {{1, 4, 5, 5}}), HasSubstr("got (1,4,5,5)"));
}

TEST(Convolution3d, RejectsAKernelLargerThanTheInput) {
  EXPECT_THAT(LayerError(Conv3d("(0,0,0)"), {{1, 4, 2, 5, 5}}), HasSubstr("does not fit"));
}

TEST(Convolution3d, RejectsSamePaddingWithAStride) {
  EXPECT_THAT(LayerError(Conv3d("same", "(2,1,1)"), {{1, 4, 5, 5, 5}}),
              HasSubstr("padding='same' is not supported for strided convolutions"));
}

TEST(Convolution3d, RejectsAFunctionalWeightOfTheWrongRank) {
  const Node op = MakeOperator(
      "F.conv3d",
      {"stride=(1,1,1)", "padding=(0,0,0)", "dilation=(1,1,1)", "groups=1", "bias=None"}, {}, 2);
  EXPECT_THAT(LayerError(op, {{1, 4, 5, 5, 5}, {6, 4, 3, 3}}),
              HasSubstr("expected a weight of shape (C_out, C_in/groups, kD, kH, kW)"));
}

TEST(Convolution3d, RejectsAnUnknownPaddingMode) {
  const Node op = MakeOperator(
      "nn.Conv3d",
      {"in_channels=1", "out_channels=1", "kernel_size=(1,1,1)", "padding_mode=mirror"},
      {{"weight", {{1, 1, 1, 1, 1}, {}}}});
  EXPECT_THAT(LayerError(op, {{1, 1, 2, 2, 2}}), HasSubstr("unknown padding_mode 'mirror'"));
}

}  // namespace
}  // namespace lumen
