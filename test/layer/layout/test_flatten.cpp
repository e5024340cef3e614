// torch.flatten against PyTorch, including negative dims, and flattening the batch.
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

LUMEN_LAYER_CASE_TEST(Flatten, flatten_middle)
LUMEN_LAYER_CASE_TEST(Flatten, flatten_negative)
LUMEN_LAYER_CASE_TEST(Flatten, flatten_start2)
// Rank-0 tensors (what PyTorch returns for x.sum() or a dot product), against PyTorch.
LUMEN_LAYER_CASE_TEST(Flatten, rank0_flatten)

TEST(Flatten, FlattensTheBatchLikeAnyDimension) {
  std::vector<float> values(24);
  std::iota(values.begin(), values.end(), 0.0f);
  const Node op = MakeOperator("torch.flatten", {"start_dim=0", "end_dim=1"});
  const std::vector<Tensor> outputs = RunLayer(op, {Tensor::FromRowMajor(values, {2, 3, 4})});
  ASSERT_EQ(outputs[0].shape(), Shape({6, 4}));
  EXPECT_EQ(outputs[0].ToRowMajor(), values);
  EXPECT_EQ(InferShapes(MakeOperator("torch.flatten", {}), {{2, 3, 4}}),
            std::vector<Shape>({{24}}));
  EXPECT_EQ(InferShapes(MakeOperator("torch.flatten", {}), {{}}), std::vector<Shape>({{1}}));
}

TEST(Flatten, FollowsTheInputSize) {
  const Node op = MakeOperator("torch.flatten", {"start_dim=1", "end_dim=-1"});
  EXPECT_EQ(InferShapes(op, {{4, 512, 1, 1}}), std::vector<Shape>({{4, 512}}));
  EXPECT_EQ(InferShapes(op, {{1, 512, 7, 7}}), std::vector<Shape>({{1, 25088}}));
}

TEST(Flatten, RejectsDimensionsOutOfRange) {
  const Node op = MakeOperator("torch.flatten", {"start_dim=1", "end_dim=5"});
  EXPECT_THAT(LayerError(op, {{2, 3, 4}}),
              HasSubstr("dim 5 is out of range for a tensor of rank 3"));
  EXPECT_THAT(LayerError(MakeOperator("torch.flatten", {"start_dim=2", "end_dim=1"}), {{2, 3, 4}}),
              HasSubstr("start_dim 2 comes after end_dim 1 for input (2,3,4)"));
}

TEST(Flatten, RejectsAnExtentThatOverflows) {
  EXPECT_THAT(LayerError(MakeOperator("torch.flatten", {}), {{65536, 65536}}),
              HasSubstr("above 2^32 - 1"));
}

}  // namespace
}  // namespace lumen
