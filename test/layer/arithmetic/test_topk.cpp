// torch.topk against PyTorch: largest and smallest, sorted and unsorted (whose order is PyTorch's
// selection algorithm's), on both of its paths (partial sort for small k, selection for large k),
// any dim; shape inference and its errors.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RunLayer;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(TopK, topk_smallest_unsorted_partial)
LUMEN_LAYER_CASE_TEST(TopK, topk_largest_sorted_partial)
LUMEN_LAYER_CASE_TEST(TopK, topk_smallest_sorted_select)
LUMEN_LAYER_CASE_TEST(TopK, topk_largest_unsorted_select)

TEST(TopK, GivesValuesAndPositions) {
  const Node op = MakeOperator("torch.topk", {"k=2", "dim=-1"}, {}, 1, 2);
  EXPECT_EQ(InferShapes(op, {{2, 3, 5}}), (std::vector<Shape>{{2, 3, 2}, {2, 3, 2}}));
  const Tensor input = Tensor::FromRowMajor({3, std::nanf(""), 7, 1, 2, 9}, {2, 3});
  const std::vector<Tensor> outputs = RunLayer(op, {input}, 2);
  const std::vector<float> values = outputs[0].ToRowMajor();
  EXPECT_TRUE(std::isnan(values[0]));  // NaN counts as the largest
  EXPECT_EQ(values[1], 7.0f);
  EXPECT_EQ(values[2], 9.0f);
  EXPECT_EQ(values[3], 2.0f);
  EXPECT_EQ(outputs[1].ToRowMajor(), (std::vector<float>{1, 2, 2, 1}));
}

TEST(TopK, RefusesKLargerThanTheDim) {
  EXPECT_THAT(LayerError(MakeOperator("torch.topk", {"k=6", "dim=1"}, {}, 1, 2), {{2, 5}}),
              HasSubstr("k = 6 is larger than dim 1's extent 5"));
  EXPECT_THAT(LayerError(MakeOperator("torch.topk", {"k=-1"}, {}, 1, 2), {{2, 5}}),
              HasSubstr("k must be at least 0"));
}

}  // namespace
}  // namespace lumen
