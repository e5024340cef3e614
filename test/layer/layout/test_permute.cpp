// torch.permute / Tensor.permute against PyTorch, up to rank 5, and orders that move the batch.
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

LUMEN_LAYER_CASE_TEST(Permute, permute_negative)
LUMEN_LAYER_CASE_TEST(Permute, permute_nhwc)
LUMEN_LAYER_CASE_TEST(Permute, permute_yolo_rank5)

TEST(Permute, MovesTheBatchLikeAnyDimension) {
  // (2,3,4).permute(2,0,1): element [a][b][c] goes to [c][a][b].
  std::vector<float> values(24);
  std::iota(values.begin(), values.end(), 0.0f);
  const Node op = MakeOperator("torch.permute", {"dims=(2,0,1)"});
  const std::vector<Tensor> outputs = RunLayer(op, {Tensor::FromRowMajor(values, {2, 3, 4})});
  ASSERT_EQ(outputs[0].shape(), Shape({4, 2, 3}));
  const std::vector<float> got = outputs[0].ToRowMajor();
  for (size_t a = 0; a < 2; ++a) {
    for (size_t b = 0; b < 3; ++b) {
      for (size_t c = 0; c < 4; ++c) {
        EXPECT_EQ(got[(c * 2 + a) * 3 + b], values[(a * 3 + b) * 4 + c]);
      }
    }
  }
}

TEST(Permute, FollowsTheInputSize) {
  // YOLO's head: (N,3,85,H,W) -> (N,3,H,W,85) at any N, H, W.
  const Node op = MakeOperator("Tensor.permute", {"dims=(0,1,3,4,2)"});
  EXPECT_EQ(InferShapes(op, {{4, 3, 85, 10, 12}}), std::vector<Shape>({{4, 3, 10, 12, 85}}));
}

TEST(Permute, GathersOnSeveralThreads) {
  std::vector<float> values(2 * 16 * 40 * 40);
  std::iota(values.begin(), values.end(), 0.0f);
  const Node op = MakeOperator("torch.permute", {"dims=(0,2,3,1)"});
  const std::vector<Tensor> outputs =
      RunLayer(op, {Tensor::FromRowMajor(values, {2, 16, 40, 40})}, 3);
  ASSERT_EQ(outputs[0].shape(), Shape({2, 40, 40, 16}));
  const std::vector<float> got = outputs[0].ToRowMajor();
  for (size_t n = 0; n < 2; ++n) {
    for (size_t h = 0; h < 40; h += 13) {
      for (size_t c = 0; c < 16; ++c) {
        EXPECT_EQ(got[((n * 40 + h) * 40 + 7) * 16 + c], values[((n * 16 + c) * 40 + h) * 40 + 7]);
      }
    }
  }
}

TEST(Permute, RejectsARepeatedDimension) {
  EXPECT_THAT(LayerError(MakeOperator("torch.permute", {"dims=(0,1,1)"}), {{1, 2, 3}}),
              HasSubstr("dims repeats dimension 1"));
  EXPECT_THAT(LayerError(MakeOperator("torch.permute", {"dims=(0,-1,2)"}), {{1, 2, 3}}),
              HasSubstr("dims repeats dimension 2"));
}

TEST(Permute, RejectsOrdersOfAnotherRank) {
  EXPECT_THAT(LayerError(MakeOperator("torch.permute", {"dims=(0,2,1)"}), {{1, 2, 3, 4}}),
              HasSubstr("dims has 3 entries for an input of rank 4"));
  EXPECT_THAT(LayerError(MakeOperator("torch.permute", {"dims=(0,3,1)"}), {{1, 2, 3}}),
              HasSubstr("dim 3 is out of range for a tensor of rank 3"));
}

}  // namespace
}  // namespace lumen
