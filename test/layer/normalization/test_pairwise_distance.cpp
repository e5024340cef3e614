// F.pairwise_distance against PyTorch: p = 1, 2, 3 and inf, keepdim, broadcast operands, eps; and
// its errors.
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

LUMEN_LAYER_CASE_TEST(PairwiseDistance, pairwise_distance_p2_keepdim)
LUMEN_LAYER_CASE_TEST(PairwiseDistance, pairwise_distance_p1_broadcast)
LUMEN_LAYER_CASE_TEST(PairwiseDistance, pairwise_distance_p3)
LUMEN_LAYER_CASE_TEST(PairwiseDistance, pairwise_distance_inf)

TEST(PairwiseDistance, RejectsOperandsThatDoNotBroadcast) {
  const Node op = MakeOperator("F.pairwise_distance", {"p=2.0", "keepdim=False"}, {}, 2);
  EXPECT_THAT(LayerError(op, {{3, 4}, {3, 5}}),
              HasSubstr("x1 (3,4) and x2 (3,5) cannot be broadcast together"));
  EXPECT_EQ(LayerError(op, {{3, 4}, {4}}, {{3}}), "");
}

TEST(PairwiseDistance, RejectsANegativeP) {
  const Node op = MakeOperator("F.pairwise_distance", {"p=-1.0"}, {}, 2);
  EXPECT_THAT(LayerError(op, {{3, 4}, {3, 4}}), HasSubstr("p must be a non-negative number"));
}

}  // namespace
}  // namespace lumen
