// torch.transpose against PyTorch, and transposes of the batch and negative dims.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RunLayer;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Transpose, transpose_channels_rows)
LUMEN_LAYER_CASE_TEST(Transpose, transpose_last_two)

TEST(Transpose, SwapsTheBatchWithAnotherDimension) {
  // (2,3,4).transpose(0,-1): element [a][b][c] goes to [c][b][a].
  std::vector<float> values(24);
  std::iota(values.begin(), values.end(), 0.0f);
  const Node op = MakeOperator("Tensor.transpose", {"dim0=0", "dim1=-1"});
  const std::vector<Tensor> outputs = RunLayer(op, {Tensor::FromRowMajor(values, {2, 3, 4})});
  ASSERT_EQ(outputs[0].shape(), Shape({4, 3, 2}));
  const std::vector<float> got = outputs[0].ToRowMajor();
  for (size_t a = 0; a < 2; ++a) {
    for (size_t b = 0; b < 3; ++b) {
      for (size_t c = 0; c < 4; ++c)
        EXPECT_EQ(got[(c * 3 + b) * 2 + a], values[(a * 3 + b) * 4 + c]);
    }
  }
}

TEST(Transpose, FollowsTheInputRankAndSize) {
  const Node op = MakeOperator("torch.transpose", {"dim0=1", "dim1=2"});
  EXPECT_EQ(InferShapes(op, {{4, 5, 6}}), std::vector<Shape>({{4, 6, 5}}));
  EXPECT_EQ(InferShapes(op, {{2, 3, 7, 9, 4}}), std::vector<Shape>({{2, 7, 3, 9, 4}}));
  EXPECT_EQ(InferShapes(MakeOperator("torch.transpose", {"dim0=1", "dim1=1"}), {{2, 3}}),
            std::vector<Shape>({{2, 3}}));
}

TEST(Transpose, RejectsADimensionOutOfRange) {
  EXPECT_THAT(LayerError(MakeOperator("torch.transpose", {"dim0=1", "dim1=3"}), {{1, 2, 3}}),
              HasSubstr("dim 3 is out of range for a tensor of rank 3"));
}

}  // namespace
}  // namespace lumen
