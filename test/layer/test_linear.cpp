// nn.Linear against PyTorch: no bias, ranks 2 to 4, a batch of 2.
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

LUMEN_LAYER_CASE_TEST(Linear, linear_batch2)
LUMEN_LAYER_CASE_TEST(Linear, linear_nobias)
LUMEN_LAYER_CASE_TEST(Linear, linear_rank3)
LUMEN_LAYER_CASE_TEST(Linear, linear_rank4)

TEST(Linear, RejectsAnInputWithOtherFeatures) {
  const RuntimeOperator op = MakeOperator(
      "nn.Linear", {"in_features=4", "out_features=3", "bias=False"}, {{"weight", {{3, 4}, {}}}});
  EXPECT_THAT(LayerError(op, {{1, 5}}, {{1, 3}}),
              HasSubstr("expected an input of shape (N,...,4), got (1,5)"));
}

}  // namespace
}  // namespace lumen
