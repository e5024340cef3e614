// torch.unsqueeze against PyTorch, and at the front and out of range.
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

LUMEN_LAYER_CASE_TEST(Unsqueeze, unsqueeze_last)
LUMEN_LAYER_CASE_TEST(Unsqueeze, unsqueeze_middle)
// Rank-0 tensors (what PyTorch returns for x.sum() or a dot product), against PyTorch.
LUMEN_LAYER_CASE_TEST(Unsqueeze, rank0_unsqueeze)

TEST(Unsqueeze, InsertsAnywhereInTheOutput) {
  EXPECT_EQ(InferShapes(MakeOperator("torch.unsqueeze", {"dim=0"}), {{3, 4}}),
            std::vector<Shape>({{1, 3, 4}}));
  EXPECT_EQ(InferShapes(MakeOperator("torch.unsqueeze", {"dim=-1"}), {{3, 4}}),
            std::vector<Shape>({{3, 4, 1}}));
  EXPECT_EQ(InferShapes(MakeOperator("torch.unsqueeze", {"dim=-3"}), {{3, 4}}),
            std::vector<Shape>({{1, 3, 4}}));
  EXPECT_EQ(InferShapes(MakeOperator("torch.unsqueeze", {"dim=0"}), {{}}),
            std::vector<Shape>({{1}}));
}

TEST(Unsqueeze, KeepsTheElementsInOrder) {
  std::vector<float> values(2 * 3 * 4);
  std::iota(values.begin(), values.end(), 0.0f);
  const std::vector<Tensor> outputs = RunLayer(MakeOperator("Tensor.unsqueeze", {"dim=2"}),
                                               {Tensor::FromRowMajor(values, {2, 3, 4})});
  ASSERT_EQ(outputs[0].shape(), Shape({2, 3, 1, 4}));
  EXPECT_EQ(outputs[0].ToRowMajor(), values);
}

TEST(Unsqueeze, RejectsADimensionOutOfRange) {
  EXPECT_THAT(LayerError(MakeOperator("torch.unsqueeze", {"dim=3"}), {{3, 4}}),
              HasSubstr("dim 3 is out of range for a tensor of rank 3"));
  EXPECT_THAT(LayerError(MakeOperator("torch.unsqueeze", {"dim=-4"}), {{3, 4}}),
              HasSubstr("dim -4 is out of range"));
}

}  // namespace
}  // namespace lumen
