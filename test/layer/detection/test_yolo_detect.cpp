// models.yolo.Detect against PyTorch, with both pnnx attribute namings and both grid conventions,
// at the export's feature sizes and at others (smaller, larger, non-square, batch 2), where
// YOLOv5 rebuilds its grids; shape inference and its errors.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "support/case_runner.hpp"
#include "support/kernel_testing.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RandomValues;
using test_support::RunLayer;
using test_support::Weight;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(YoloDetect, detect_old_grid_names)
LUMEN_LAYER_CASE_TEST(YoloDetect, detect_old_larger_than_export)
LUMEN_LAYER_CASE_TEST(YoloDetect, detect_v7)
LUMEN_LAYER_CASE_TEST(YoloDetect, detect_v7_non_square_batch2)
LUMEN_LAYER_CASE_TEST(YoloDetect, detect_v7_smaller_than_export)

// A two-level head (channels 4 and 8, 3 anchors, 2 classes) whose stored grids are for 4x4 and
// 2x2 maps, with random convolution weights.
Node TwoLevelHead() {
  std::mt19937 generator(81);
  const auto grid = [](int size, float value) {
    return Weight{{1, 3, size, size, 2}, std::vector<float>(3 * size * size * 2, value)};
  };
  std::map<std::string, Weight> weights = {
      {"m.0.weight", {{21, 4, 1, 1}, RandomValues(84, &generator)}},
      {"m.0.bias", {{21}, RandomValues(21, &generator)}},
      {"m.1.weight", {{21, 8, 1, 1}, RandomValues(168, &generator)}},
      {"m.1.bias", {{21}, RandomValues(21, &generator)}},
      {"pnnx_00", grid(4, -0.5f)},  // a grid (its values are never used)
      {"pnnx_01", {{2}, {8.0f, 16.0f}}},
      {"pnnx_02", grid(4, 12.0f)},  // level 0's anchors
      {"pnnx_03", grid(2, -0.5f)},
      {"pnnx_04", grid(2, 40.0f)},  // level 1's anchors
  };
  return MakeOperator("models.yolo.Detect", {}, weights, 2);
}

TEST(YoloDetect, InfersTheRowsForAnyFeatureSize) {
  const Node op = TwoLevelHead();
  EXPECT_EQ(InferShapes(op, {{1, 4, 4, 4}, {1, 8, 2, 2}}), std::vector<Shape>({{1, 60, 7}}));
  EXPECT_EQ(InferShapes(op, {{3, 4, 12, 20}, {3, 8, 6, 10}}),
            std::vector<Shape>({{3, 3 * (240 + 60), 7}}));
}

// Every sample of a batch decodes as it does alone, on any thread count.
TEST(YoloDetect, DecodesEverySampleOfABatch) {
  const Node op = TwoLevelHead();
  std::mt19937 generator(82);
  const std::vector<float> p3 = RandomValues(2 * 4 * 6 * 10, &generator);
  const std::vector<float> p4 = RandomValues(2 * 8 * 3 * 5, &generator);
  const std::vector<float> batch =
      RunLayer(op,
               {Tensor::FromRowMajor(p3, {2, 4, 6, 10}), Tensor::FromRowMajor(p4, {2, 8, 3, 5})},
               3)[0]
          .ToRowMajor();
  for (size_t sample = 0; sample < 2; ++sample) {
    const std::vector<float> p3_one(p3.begin() + sample * 240, p3.begin() + (sample + 1) * 240);
    const std::vector<float> p4_one(p4.begin() + sample * 120, p4.begin() + (sample + 1) * 120);
    const std::vector<float> alone = RunLayer(op,
                                              {Tensor::FromRowMajor(p3_one, {1, 4, 6, 10}),
                                               Tensor::FromRowMajor(p4_one, {1, 8, 3, 5})},
                                              1)[0]
                                         .ToRowMajor();
    ASSERT_EQ(alone.size(), 3u * (60 + 15) * 7);
    const std::vector<float> part(batch.begin() + sample * alone.size(),
                                  batch.begin() + (sample + 1) * alone.size());
    EXPECT_EQ(part, alone) << "sample " << sample;
  }
}

TEST(YoloDetect, RejectsInputsWhoseChannelsDoNotMatch) {
  EXPECT_THAT(LayerError(TwoLevelHead(), {{1, 4, 4, 4}, {1, 6, 2, 2}}),
              HasSubstr("models.yolo.Detect 'op': input 1 has shape (1,6,2,2), expected (N,8,H,W): "
                        "level 1's 1x1 convolution reads 8 channels"));
  EXPECT_THAT(LayerError(TwoLevelHead(), {{1, 4, 4, 4}, {2, 8, 2, 2}}),
              HasSubstr("the batch sizes differ"));
  EXPECT_THAT(LayerError(TwoLevelHead(), {{1, 4, 4, 4}}), HasSubstr("expected 2 input(s), got 1"));
}

TEST(YoloDetect, RejectsAMissingStrideVector) {
  const Node op = MakeOperator("models.yolo.Detect", {},
                               {{"m.0.weight", {{21, 4, 1, 1}, {}}},
                                {"m.0.bias", {{21}, {}}},
                                {"pnnx_00", {{1, 3, 2, 2, 2}, {}}}});
  EXPECT_THAT(LayerError(op, {{1, 4, 2, 2}}),
              HasSubstr("expected one stride per level, got 0 strides for 1 levels"));
}

// A hostile grid with no cells must not pass for an anchor grid (it has no sizes to read).
TEST(YoloDetect, RejectsAnEmptyGrid) {
  Node op = MakeOperator(
      "models.yolo.Detect", {},
      {{"m.0.weight", {{21, 4, 1, 1}, {}}}, {"m.0.bias", {{21}, {}}}, {"pnnx_01", {{1}, {8.0f}}}});
  Attribute& empty = op.attributes["pnnx_00"];  // by hand: MakeOperator copies its bytes
  empty.type = DataType::kFloat32;
  empty.shape = {1, 3, 0, 2, 2};
  EXPECT_THAT(LayerError(op, {{1, 4, 2, 2}}), HasSubstr("unexpected attribute '@pnnx_00'"));
}

TEST(YoloDetect, RejectsAMissingAnchorGrid) {
  const Node op = MakeOperator("models.yolo.Detect", {},
                               {{"m.0.weight", {{21, 4, 1, 1}, {}}},
                                {"m.0.bias", {{21}, {}}},
                                {"pnnx_00", {{1, 3, 2, 2, 2}, {}}},
                                {"pnnx_01", {{1}, {8.0f}}}});
  EXPECT_THAT(LayerError(op, {{1, 4, 2, 2}}), HasSubstr("found 0 anchor grids"));
}

}  // namespace
}  // namespace lumen
