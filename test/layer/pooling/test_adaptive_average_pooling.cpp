// nn.AdaptiveAvgPool2d against PyTorch: uneven bins, upsampling, None entries, batches; shape
// inference for any input size, and its errors.
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
using test_support::RunLayer;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(AdaptiveAveragePooling, adaptive_1x1)
LUMEN_LAYER_CASE_TEST(AdaptiveAveragePooling, adaptive_7_to_4)
LUMEN_LAYER_CASE_TEST(AdaptiveAveragePooling, adaptive_batch2_uneven)
LUMEN_LAYER_CASE_TEST(AdaptiveAveragePooling, adaptive_functional)
LUMEN_LAYER_CASE_TEST(AdaptiveAveragePooling, adaptive_keep_height)
LUMEN_LAYER_CASE_TEST(AdaptiveAveragePooling, adaptive_upsampling)

TEST(AdaptiveAveragePooling, InfersTheOutputForAnyInputSize) {
  EXPECT_EQ(
      InferShapes(MakeOperator("nn.AdaptiveAvgPool2d", {"output_size=(1,1)"}), {{8, 512, 5, 10}}),
      std::vector<Shape>({{8, 512, 1, 1}}));
  EXPECT_EQ(InferShapes(MakeOperator("nn.AdaptiveAvgPool2d", {"output_size=3"}), {{2, 9, 4}}),
            std::vector<Shape>({{2, 3, 3}}));
  EXPECT_EQ(
      InferShapes(MakeOperator("nn.AdaptiveAvgPool2d", {"output_size=(None,3)"}), {{3, 2, 11, 9}}),
      std::vector<Shape>({{3, 2, 11, 3}}));
}

// ResNet's global pooling on a batch: every plane's mean.
TEST(AdaptiveAveragePooling, AveragesEveryPlaneOfABatch) {
  const Shape shape{3, 4, 5, 6};
  std::vector<float> values(ShapeElementCount(shape));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 30);
  for (size_t plane = 0; plane < 12; ++plane) values[plane * 30] += static_cast<float>(plane) * 30;
  const std::vector<Tensor> outputs =
      RunLayer(MakeOperator("nn.AdaptiveAvgPool2d", {"output_size=(1,1)"}),
               {Tensor::FromRowMajor(values, shape)}, 2);
  ASSERT_EQ(outputs[0].shape(), Shape({3, 4, 1, 1}));
  const std::vector<float> means = outputs[0].ToRowMajor();
  for (size_t plane = 0; plane < 12; ++plane) {
    EXPECT_FLOAT_EQ(means[plane], 14.5f + static_cast<float>(plane)) << "plane " << plane;
  }
}

TEST(AdaptiveAveragePooling, RejectsAnInputOfTheWrongRank) {
  const Node op = MakeOperator("nn.AdaptiveAvgPool2d", {"output_size=(1,1)"});
  EXPECT_THAT(LayerError(op, {{2, 7}}),
              HasSubstr("expected a (C,H,W) or (N,C,H,W) input with non-empty H and W, got (2,7)"));
}

// pnnx writes output_size=(None,3) as (0,3): 0 keeps the input's extent.
TEST(AdaptiveAveragePooling, ReadsZeroAsNoneAndRejectsNegativeSizes) {
  EXPECT_EQ(
      InferShapes(MakeOperator("nn.AdaptiveAvgPool2d", {"output_size=(0,3)"}), {{1, 2, 7, 9}}),
      std::vector<Shape>({{1, 2, 7, 3}}));
  EXPECT_THAT(
      LayerError(MakeOperator("nn.AdaptiveAvgPool2d", {"output_size=(-1,3)"}), {{1, 2, 7, 7}}),
      HasSubstr("output_size must be positive (or None, which pnnx writes as 0), got '(-1,3)'"));
  EXPECT_THAT(
      LayerError(MakeOperator("nn.AdaptiveAvgPool3d", {"output_size=(2,3)"}), {{1, 2, 4, 7, 7}}),
      HasSubstr("output_size must have 3 entries, got '(2,3)'"));
  EXPECT_THAT(
      LayerError(MakeOperator("nn.AdaptiveAvgPool3d", {"output_size=(2,2,2)"}), {{2, 7, 7}}),
      HasSubstr("expected a (C,D,H,W) or (N,C,D,H,W) input with non-empty D, H and W"));
}

// F.adaptive_avg_pool3d(torch.arange(16.).reshape(1, 2, 2, 4), (1, 1, 2)): depth bins [0, 2),
// rows [0, 2), columns [0, 2) and [2, 4); the means of 0,1,4,5,8,9,12,13 and 2,3,6,7,10,11,14,15.
TEST(AdaptiveAveragePooling, AveragesAcrossDepth) {
  std::vector<float> values(16);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  const std::vector<Tensor> outputs =
      RunLayer(MakeOperator("F.adaptive_avg_pool3d", {"output_size=(1,1,2)"}),
               {Tensor::FromRowMajor(values, {1, 2, 2, 4})});
  EXPECT_EQ(outputs[0].shape(), Shape({1, 1, 1, 2}));
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({6.5f, 8.5f}));
  EXPECT_EQ(InferShapes(MakeOperator("nn.AdaptiveAvgPool1d", {"output_size=(3)"}), {{2, 5, 8}}),
            std::vector<Shape>({{2, 5, 3}}));
}

}  // namespace
}  // namespace lumen
