// torch.cat of 2..4 inputs on any dim against PyTorch.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::LayerError;
using test_support::MakeOperator;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Concatenate, cat_channels_4)
LUMEN_LAYER_CASE_TEST(Concatenate, cat_last)
LUMEN_LAYER_CASE_TEST(Concatenate, cat_rank3)
LUMEN_LAYER_CASE_TEST(Concatenate, cat_rank5_last)
LUMEN_LAYER_CASE_TEST(Concatenate, cat_rows)

TEST(Concatenate, RejectsInputsThatDifferOutsideTheDimension) {
  EXPECT_THAT(LayerError(MakeOperator("torch.cat", {"dim=1"}), {{1, 2, 3}, {1, 2, 4}}, {{1, 4, 3}}),
              HasSubstr("inputs (1,2,3) and (1,2,4) differ outside dim 1"));
}

}  // namespace
}  // namespace lumen
