// nn.Conv2d: every algorithm path against PyTorch, and the errors a bad operator gets.
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

LUMEN_LAYER_CASE_TEST(Convolution, conv_1x1_pointwise)
LUMEN_LAYER_CASE_TEST(Convolution, conv_1x1_stride2)
LUMEN_LAYER_CASE_TEST(Convolution, conv_1x5_nobias)
LUMEN_LAYER_CASE_TEST(Convolution, conv_5x1)
LUMEN_LAYER_CASE_TEST(Convolution, conv_6x6_stride2_yolo_stem)
LUMEN_LAYER_CASE_TEST(Convolution, conv_7x7_stride2)
LUMEN_LAYER_CASE_TEST(Convolution, conv_batch3)
LUMEN_LAYER_CASE_TEST(Convolution, conv_depthwise_multiplier2)
LUMEN_LAYER_CASE_TEST(Convolution, conv_depthwise_stride2)
LUMEN_LAYER_CASE_TEST(Convolution, conv_dilation3)
LUMEN_LAYER_CASE_TEST(Convolution, conv_groups3)
LUMEN_LAYER_CASE_TEST(Convolution, conv_same_even_kernel)
LUMEN_LAYER_CASE_TEST(Convolution, conv_stride2_odd)
LUMEN_LAYER_CASE_TEST(Convolution, conv_tiny_map_many_channels)
LUMEN_LAYER_CASE_TEST(Convolution, conv_valid)
LUMEN_LAYER_CASE_TEST(Convolution, conv_winograd_odd)
LUMEN_LAYER_CASE_TEST(Convolution, conv_winograd_unpadded)

RuntimeOperator ConvolutionOp(const std::string& extra = "groups=1") {
  return MakeOperator("nn.Conv2d",
                      {"in_channels=4", "out_channels=6", "kernel_size=(3,3)", "stride=(1,1)",
                       "padding=(1,1)", "dilation=(1,1)", "bias=True", "padding_mode=zeros", extra},
                      {{"weight", {{6, 4, 3, 3}, {}}}, {"bias", {{6}, {}}}});
}

TEST(Convolution, RejectsGroupsThatDoNotDivideTheChannels) {
  EXPECT_THAT(LayerError(ConvolutionOp("groups=3"), {{1, 4, 9, 9}}, {{1, 6, 9, 9}}),
              HasSubstr("must be positive multiples of groups 3"));
}

TEST(Convolution, RejectsAWeightOfTheWrongShape) {
  RuntimeOperator op = ConvolutionOp();
  op.attributes["weight"].shape = {6, 4, 5, 5};
  EXPECT_THAT(LayerError(op, {{1, 4, 9, 9}}, {{1, 6, 9, 9}}),
              HasSubstr("weight '@weight' has shape (6,4,5,5) but the parameters imply (6,4,3,3)"));
}

TEST(Convolution, RejectsAMissingWeight) {
  RuntimeOperator op = ConvolutionOp();
  op.attributes.erase("weight");
  EXPECT_EQ(LayerError(op, {{1, 4, 9, 9}}, {{1, 6, 9, 9}}),
            "nn.Conv2d 'op': missing weight attribute '@weight'");
}

TEST(Convolution, RejectsPaddingModesOtherThanZeros) {
  RuntimeOperator op = ConvolutionOp();
  op.params["padding_mode"] = RuntimeParameter::Parse("reflect");
  EXPECT_THAT(LayerError(op, {{1, 4, 9, 9}}, {{1, 6, 9, 9}}),
              HasSubstr("padding_mode 'reflect' is not supported"));
}

TEST(Convolution, RejectsAnInputWithOtherChannels) {
  EXPECT_THAT(LayerError(ConvolutionOp(), {{1, 5, 9, 9}}, {{1, 6, 9, 9}}),
              HasSubstr("expected an input of shape (N,4,H,W), got (1,5,9,9)"));
}

TEST(Convolution, RejectsAnOutputShapeTheWindowCannotGive) {
  EXPECT_THAT(LayerError(ConvolutionOp(), {{1, 4, 9, 9}}, {{1, 6, 8, 9}}),
              HasSubstr("gives output (1,6,9,9) but the graph says (1,6,8,9)"));
}

TEST(Convolution, RejectsAKernelLargerThanThePaddedInput) {
  RuntimeOperator op = ConvolutionOp();
  op.params["padding"] = RuntimeParameter::Parse("(0,0)");
  EXPECT_THAT(LayerError(op, {{1, 4, 2, 9}}, {{1, 6, 0, 7}}),
              HasSubstr("the 3x3 kernel does not fit in the padded 2x9 input"));
}

}  // namespace
}  // namespace lumen
