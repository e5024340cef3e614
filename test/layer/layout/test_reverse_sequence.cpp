// lumen.ReverseSequence against ONNX's definition (the examples of its operator documentation:
// batch_dim 1 / time_dim 0 and batch_dim 0 / time_dim 1), and the lengths it refuses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RunLayer;
using test_support::RunLayerError;
using ::testing::HasSubstr;

TEST(ReverseSequence, ReversesEachEntrysFirstSteps) {
  // ONNX's reversesequence_time example: x[t][b] = 4 * b + t, lengths 4, 3, 2, 1.
  const Node time_first =
      MakeOperator("lumen.ReverseSequence", {"batch_dim=1", "time_dim=0"}, {}, 2);
  const Tensor x =
      Tensor::FromRowMajor({0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15}, {4, 4});
  const Tensor lengths = Tensor::FromRowMajor({4, 3, 2, 1}, {4});
  EXPECT_EQ(RunLayer(time_first, {x, lengths})[0].ToRowMajor(),
            (std::vector<float>{3, 6, 9, 12, 2, 5, 8, 13, 1, 4, 10, 14, 0, 7, 11, 15}));
  // ONNX's reversesequence_batch example: rows are batch entries, lengths 1, 2, 3, 4.
  const Node batch_first =
      MakeOperator("lumen.ReverseSequence", {"batch_dim=0", "time_dim=1"}, {}, 2);
  const Tensor rows =
      Tensor::FromRowMajor({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {4, 4});
  const Tensor row_lengths = Tensor::FromRowMajor({1, 2, 3, 4}, {4});
  EXPECT_EQ(RunLayer(batch_first, {rows, row_lengths})[0].ToRowMajor(),
            (std::vector<float>{0, 1, 2, 3, 5, 4, 6, 7, 10, 9, 8, 11, 15, 14, 13, 12}));
  EXPECT_EQ(InferShapes(batch_first, {{4, 4, 3}, {4}}), (std::vector<Shape>{{4, 4, 3}}));
}

TEST(ReverseSequence, RefusesBadLengths) {
  const Node op = MakeOperator("lumen.ReverseSequence", {"batch_dim=0", "time_dim=1"}, {}, 2);
  EXPECT_THAT(LayerError(op, {{4, 3}, {3}}),
              HasSubstr("the lengths must be a vector of one per batch entry, (4)"));
  const Tensor x = Tensor::FromRowMajor({0, 1, 2, 3}, {2, 2});
  EXPECT_THAT(RunLayerError(op, {x, Tensor::FromRowMajor({3, 1}, {2})}),
              HasSubstr("length 3 is not a whole number in [0, 2]"));
}

}  // namespace
}  // namespace lumen
