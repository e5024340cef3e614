// lumen.Shape, ONNX's Shape (onnx.backend.test.case.node.shape): the extents of its input, from
// start to end (opset 15: negative values count from the end, both clamp to [0, rank]).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::MakeOperator;
using test_support::RunLayer;

TEST(Shape, GivesTheExtentsFromStartToEnd) {
  const Tensor input(Shape{3, 4, 5});
  EXPECT_EQ(RunLayer(MakeOperator("lumen.Shape", {}), {input})[0].ToRowMajor(),
            std::vector<float>({3, 4, 5}));
  // shape_start_1, shape_end_1, shape_start_negative_1, shape_clip_start, shape_clip_end.
  EXPECT_EQ(RunLayer(MakeOperator("lumen.Shape", {"start=1"}), {input})[0].ToRowMajor(),
            std::vector<float>({4, 5}));
  EXPECT_EQ(RunLayer(MakeOperator("lumen.Shape", {"end=1"}), {input})[0].ToRowMajor(),
            std::vector<float>({3}));
  EXPECT_EQ(RunLayer(MakeOperator("lumen.Shape", {"start=-1"}), {input})[0].ToRowMajor(),
            std::vector<float>({5}));
  EXPECT_EQ(RunLayer(MakeOperator("lumen.Shape", {"start=-10"}), {input})[0].ToRowMajor(),
            std::vector<float>({3, 4, 5}));
  EXPECT_EQ(RunLayer(MakeOperator("lumen.Shape", {"end=10"}), {input})[0].ToRowMajor(),
            std::vector<float>({3, 4, 5}));
  EXPECT_EQ(RunLayer(MakeOperator("lumen.Shape", {"start=2", "end=1"}), {input})[0].shape(),
            Shape({0}));
  // A scalar has no extents.
  EXPECT_EQ(RunLayer(MakeOperator("lumen.Shape", {}), {Tensor(Shape{})})[0].shape(), Shape({0}));
}

}  // namespace
}  // namespace lumen
