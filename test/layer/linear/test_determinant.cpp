// torch.det against PyTorch: a batch of 3x3 matrices (one needing a row swap), a single 2x2 one,
// a batch of two dimensions (the output's own layout), a singular matrix; shapes it refuses.
//
// Expected values printed by /usr/bin/python3 (torch):
//   torch.det(torch.tensor([[[1.,2,3],[4,5,6],[7,8,10]],[[0.,2,1],[1,0,0],[3,1,2]]]))  # -3, -3
//   torch.det(torch.tensor([[2.,1],[0.5,3]]))                                          # 5.5
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RunLayer;
using ::testing::HasSubstr;

TEST(Determinant, MatchesPyTorch) {
  const Node op = MakeOperator("torch.det", {});
  const Tensor batch =
      Tensor::FromRowMajor({1, 2, 3, 4, 5, 6, 7, 8, 10, 0, 2, 1, 1, 0, 0, 3, 1, 2}, {2, 3, 3});
  const std::vector<float> got = RunLayer(op, {batch})[0].ToRowMajor();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_NEAR(got[0], -3.0f, 1e-5f);
  EXPECT_NEAR(got[1], -3.0f, 1e-5f);
  const Tensor single = Tensor::FromRowMajor({2, 1, 0.5f, 3}, {2, 2});
  EXPECT_EQ(InferShapes(op, {{2, 2}}), (std::vector<Shape>{Shape{}}));
  EXPECT_NEAR(RunLayer(op, {single})[0].ToRowMajor()[0], 5.5f, 1e-6f);
}

TEST(Determinant, WritesABatchOfTwoDimensionsInRowMajorOrder) {
  // diag(k, 1) for k = 1..6 in a (2, 3) batch: determinants 1..6.
  std::vector<float> values;
  for (int k = 1; k <= 6; ++k) values.insert(values.end(), {float(k), 0, 0, 1});
  const Tensor batch = Tensor::FromRowMajor(values, {2, 3, 2, 2});
  EXPECT_EQ(RunLayer(MakeOperator("torch.det", {}), {batch})[0].ToRowMajor(),
            (std::vector<float>{1, 2, 3, 4, 5, 6}));
  const Tensor singular = Tensor::FromRowMajor({1, 2, 2, 4}, {2, 2});
  EXPECT_EQ(RunLayer(MakeOperator("torch.det", {}), {singular})[0].ToRowMajor()[0], 0.0f);
}

TEST(Determinant, RefusesMatricesThatAreNotSquare) {
  EXPECT_THAT(LayerError(MakeOperator("torch.det", {}), {{2, 3}}),
              HasSubstr("the input must be square matrices (*, n, n), got (2,3)"));
}

}  // namespace
}  // namespace lumen
