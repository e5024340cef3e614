// lumen.Range, ONNX's Range (onnx.backend.test.case.node.range): start, start + delta, ... below
// limit, max(ceil((limit - start) / delta), 0) numbers; and the counts it refuses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::MakeOperator;
using test_support::RunLayer;
using test_support::RunLayerError;
using ::testing::HasSubstr;

// The three one-element inputs of a Range.
std::vector<Tensor> Bounds(float start, float limit, float delta) {
  return {Tensor::FromRowMajor({start}, {}), Tensor::FromRowMajor({limit}, {}),
          Tensor::FromRowMajor({delta}, {})};
}

TEST(Range, CountsAsOnnxDoes) {
  const Node op = MakeOperator("lumen.Range", {}, {}, 3);
  // range_float_type_positive_delta: 1, 3.5 ... below 10 in steps of 2.5.
  EXPECT_EQ(RunLayer(op, Bounds(1, 10, 2.5f))[0].ToRowMajor(),
            std::vector<float>({1, 3.5f, 6, 8.5f}));
  // range_int32_type_negative_delta: 10, 7, 4, 1 down to 0.
  EXPECT_EQ(RunLayer(op, Bounds(10, 0, -3))[0].ToRowMajor(), std::vector<float>({10, 7, 4, 1}));
  // A limit already passed gives nothing.
  EXPECT_EQ(RunLayer(op, Bounds(5, 1, 1))[0].shape(), Shape({0}));
}

TEST(Range, RefusesAZeroStepAndHugeCounts) {
  const Node op = MakeOperator("lumen.Range", {}, {}, 3);
  EXPECT_THAT(RunLayerError(op, Bounds(0, 4, 0)), HasSubstr("in steps of 0"));
  EXPECT_THAT(RunLayerError(op, Bounds(0, 1e30f, 1)), HasSubstr("numbers, more than"));
  EXPECT_THAT(RunLayerError(op, {Tensor(Shape{2}), Tensor(Shape{}), Tensor(Shape{})}),
              HasSubstr("input 0 must hold one number"));
}

}  // namespace
}  // namespace lumen
