// torch.argmax / torch.argmin against PyTorch (negative dims, keepdim, dim None with and without
// keepdim, ties), NaN handling, shape inference and its errors.
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

LUMEN_LAYER_CASE_TEST(ArgExtremum, argmax_negative_dim_keepdim)
LUMEN_LAYER_CASE_TEST(ArgExtremum, argmin_all_keepdim)
LUMEN_LAYER_CASE_TEST(ArgExtremum, argmax_all)
LUMEN_LAYER_CASE_TEST(ArgExtremum, argmin_ties)

TEST(ArgExtremum, InfersShapes) {
  EXPECT_EQ(InferShapes(MakeOperator("torch.argmax", {"dim=1", "keepdim=False"}), {{2, 3, 4}}),
            (std::vector<Shape>{{2, 4}}));
  EXPECT_EQ(InferShapes(MakeOperator("torch.argmin", {"dim=-1", "keepdim=True"}), {{2, 3, 4}}),
            (std::vector<Shape>{{2, 3, 1}}));
  EXPECT_EQ(InferShapes(MakeOperator("torch.argmax", {"dim=None", "keepdim=False"}), {{2, 3}}),
            (std::vector<Shape>{{}}));
}

// A NaN beats every number, as in PyTorch: its position is the answer for both.
TEST(ArgExtremum, ANaNWins) {
  const Tensor input = Tensor::FromRowMajor({1.0f, std::nanf(""), 5.0f, -2.0f}, {1, 4});
  EXPECT_EQ(RunLayer(MakeOperator("torch.argmax", {"dim=1"}), {input})[0].ToRowMajor(),
            std::vector<float>{1.0f});
  EXPECT_EQ(RunLayer(MakeOperator("torch.argmin", {"dim=None"}), {input})[0].ToRowMajor(),
            std::vector<float>{1.0f});
}

TEST(ArgExtremum, RefusesAnEmptyDimAndADimOutOfRange) {
  EXPECT_THAT(LayerError(MakeOperator("torch.argmax", {"dim=1"}), {{2, 0, 4}}),
              HasSubstr("is empty"));
  EXPECT_THAT(LayerError(MakeOperator("torch.argmin", {"dim=3"}), {{2, 3, 4}}),
              HasSubstr("torch.argmin"));
}

}  // namespace
}  // namespace lumen
