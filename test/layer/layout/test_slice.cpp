// Tensor.slice against PyTorch: steps, open and negative bounds, several dims; and on the batch,
// at other sizes, and with bounds the corpus lacks.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "support/case_runner.hpp"
#include "support/hand_values.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RunLayer;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Slice, slice_multi)
LUMEN_LAYER_CASE_TEST(Slice, slice_negative_start)
LUMEN_LAYER_CASE_TEST(Slice, slice_open_end)
LUMEN_LAYER_CASE_TEST(Slice, slice_step2)

// A tensor holding its own row-major index.
Tensor Iota(const Shape& shape) {
  std::vector<float> values(ShapeElementCount(shape));
  std::iota(values.begin(), values.end(), 0.0f);
  return Tensor::FromRowMajor(values, shape);
}

TEST(Slice, FollowsTheInputSize) {
  // x[..., -3:] keeps the last three columns at any width.
  const Node op = MakeOperator("Tensor.slice", {"dim=3", "start=-3", "end=2147483647", "step=1"});
  EXPECT_EQ(InferShapes(op, {{1, 3, 4, 7}}), std::vector<Shape>({{1, 3, 4, 3}}));
  EXPECT_EQ(InferShapes(op, {{4, 3, 9, 20}}), std::vector<Shape>({{4, 3, 9, 3}}));
  EXPECT_EQ(InferShapes(op, {{1, 3, 4, 2}}), std::vector<Shape>({{1, 3, 4, 2}}));  // clamped
}

TEST(Slice, SlicesTheBatch) {
  // x[1:3] on a batch of 4, then every second row.
  const Tensor input = Iota({4, 5, 2});
  const Node op =
      MakeOperator("Tensor.slice", {"dims=(0,1)", "starts=(1,0)", "ends=(3,5)", "steps=(1,2)"});
  const std::vector<Tensor> outputs = RunLayer(op, {input});
  ASSERT_EQ(outputs[0].shape(), Shape({2, 3, 2}));
  EXPECT_EQ(outputs[0].ToRowMajor(),
            std::vector<float>({10, 11, 14, 15, 18, 19, 20, 21, 24, 25, 28, 29}));
}

TEST(Slice, AppliesTwoSlicesOfOneDimensionInTurn) {
  // x[:, 2:][:, ::2] on 7 columns: columns 2, 4, 6.
  const Node op = MakeOperator("Tensor.slice", {"dims=(1,1)", "starts=(2,0)",
                                                "ends=(2147483647,2147483647)", "steps=(1,2)"});
  const std::vector<Tensor> outputs = RunLayer(op, {Iota({2, 7})});
  ASSERT_EQ(outputs[0].shape(), Shape({2, 3}));
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({2, 4, 6, 9, 11, 13}));
}

TEST(Slice, GivesAnEmptySliceWhenTheBoundsCross) {
  const Node op = MakeOperator("Tensor.slice", {"dim=-1", "start=5", "end=2", "step=1"});
  EXPECT_EQ(InferShapes(op, {{2, 7}}), std::vector<Shape>({{2, 0}}));
  EXPECT_TRUE(RunLayer(op, {Iota({2, 7})})[0].empty());
}

TEST(Slice, GathersALargeSliceOnSeveralThreads) {
  const Tensor input = Iota({2, 8, 50, 50});
  const Node op = MakeOperator("Tensor.slice", {"dim=1", "start=1", "end=8", "step=3"});
  const std::vector<Tensor> outputs = RunLayer(op, {input}, 3);
  ASSERT_EQ(outputs[0].shape(), Shape({2, 3, 50, 50}));
  const std::vector<float> got = outputs[0].ToRowMajor();
  for (size_t n = 0; n < 2; ++n) {
    for (size_t c = 0; c < 3; ++c) {
      const float first = static_cast<float>((n * 8 + 1 + 3 * c) * 2500);
      EXPECT_EQ(got[(n * 3 + c) * 2500], first);
      EXPECT_EQ(got[(n * 3 + c) * 2500 + 2499], first + 2499);
    }
  }
}

TEST(Slice, RejectsANonPositiveStep) {
  EXPECT_THAT(
      LayerError(MakeOperator("Tensor.slice", {"dim=1", "start=0", "end=2", "step=0"}), {{1, 4}}),
      HasSubstr("step must be positive, got 0"));
}

TEST(Slice, RejectsADimensionOutOfRange) {
  EXPECT_THAT(
      LayerError(MakeOperator("Tensor.slice", {"dim=2", "start=0", "end=2", "step=1"}), {{1, 4}}),
      HasSubstr("dim 2 is out of range for a tensor of rank 2"));
  EXPECT_THAT(LayerError(MakeOperator("Tensor.slice", {"dims=(0,1)", "starts=(0)", "ends=(1,1)"}),
                         {{1, 4}}),
              HasSubstr("dims, starts, ends and steps must have the same length"));
}

// lumen.Slice, ONNX's Slice with bounds from inputs (onnx.backend.test.case.node.slice): starts,
// ends, axes (default 0, 1, ...) and steps (default 1); bounds clamp, negative ones count from
// the end.
TEST(OperandSlice, ReadsItsBoundsFromInputs) {
  const Tensor input = test_support::Arange({4, 5});
  // x[1:3, 0:4:2] (slice with axes and steps).
  std::vector<Tensor> outputs =
      RunLayer(MakeOperator("lumen.Slice", {}, {}, 5),
               {input, Tensor::FromRowMajor({1, 0}, {2}), Tensor::FromRowMajor({3, 4}, {2}),
                Tensor::FromRowMajor({0, 1}, {2}), Tensor::FromRowMajor({1, 2}, {2})});
  EXPECT_EQ(outputs[0].shape(), Shape({2, 2}));
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({5, 7, 10, 12}));
  // slice_default_axes with an end past the extent (slice_end_out_of_bounds) and a negative
  // start (slice_neg).
  outputs = RunLayer(
      MakeOperator("lumen.Slice", {}, {}, 3),
      {input, Tensor::FromRowMajor({-1, 3}, {2}), Tensor::FromRowMajor({1000, 1000}, {2})});
  EXPECT_EQ(outputs[0].shape(), Shape({1, 2}));
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({18, 19}));
  EXPECT_THAT(
      test_support::RunLayerError(
          MakeOperator("lumen.Slice", {}, {}, 5),
          {input, Tensor::FromRowMajor({3}, {1}), Tensor::FromRowMajor(std::vector<float>{0}, {1}),
           Tensor::FromRowMajor(std::vector<float>{0}, {1}), Tensor::FromRowMajor({-1}, {1})}),
      HasSubstr("step must be positive, got -1"));
}

}  // namespace
}  // namespace lumen
