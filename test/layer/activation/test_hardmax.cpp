// lumen.Hardmax (ONNX's Hardmax) by hand: a one-hot of each slice's first largest value.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/case_runner.hpp"
#include "support/hand_values.hpp"

namespace lumen {
namespace {

using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RowMajorOutput;
using ::testing::HasSubstr;

TEST(Hardmax, MarksTheFirstLargestValue) {
  // Rows [3,1,3] (a tie: the first wins) and [-1,-2,-0.5].
  const Tensor x = Tensor::FromRowMajor({3, 1, 3, -1, -2, -0.5f}, {2, 3});
  EXPECT_EQ(RowMajorOutput("lumen.Hardmax", {}, {x}), std::vector<float>({1, 0, 0, 0, 0, 1}));
  EXPECT_EQ(RowMajorOutput("lumen.Hardmax", {"dim=0"}, {x}),
            std::vector<float>({1, 1, 1, 0, 0, 0}));
  // A NaN beats every number, as in numpy's argmax.
  EXPECT_EQ(RowMajorOutput("lumen.Hardmax", {}, {Tensor::FromRowMajor({1, NAN, 5}, {3})}),
            std::vector<float>({0, 1, 0}));
  // Over a middle dim of a 3-D input.
  const Tensor cube = Tensor::FromRowMajor({0, 5, 2, 1, 7, 3, 4, 6}, {2, 2, 2});
  EXPECT_EQ(RowMajorOutput("lumen.Hardmax", {"dim=1"}, {cube}),
            std::vector<float>({0, 1, 1, 0, 1, 0, 0, 1}));
}

TEST(Hardmax, RefusesAScalarAndABadDim) {
  EXPECT_THAT(LayerError(MakeOperator("lumen.Hardmax", {}), {{}}),
              HasSubstr("at least one dimension"));
  EXPECT_THAT(LayerError(MakeOperator("lumen.Hardmax", {"dim=2"}), {{2, 3}}), HasSubstr("dim"));
}

}  // namespace
}  // namespace lumen
