// torch.eq, ne, lt, le, gt, ge against PyTorch: broadcasting, NaN, a scalar `other`; the result
// is 0/1.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gtest/gtest.h>

#include <vector>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::MakeOperator;
using test_support::RunLayer;

LUMEN_LAYER_CASE_TEST(Comparison, compare_eq_broadcast)
LUMEN_LAYER_CASE_TEST(Comparison, compare_ne_broadcast)
LUMEN_LAYER_CASE_TEST(Comparison, compare_lt_broadcast)
LUMEN_LAYER_CASE_TEST(Comparison, compare_le_broadcast)
LUMEN_LAYER_CASE_TEST(Comparison, compare_gt_broadcast)
LUMEN_LAYER_CASE_TEST(Comparison, compare_ge_broadcast)
LUMEN_LAYER_CASE_TEST(Comparison, compare_gt_scalar)

// The operands' roles decide the order: torch.lt($input=in1, $other=in0) is in1 < in0.
TEST(Comparison, FollowsTheOperandsRoles) {
  Node op = MakeOperator("torch.lt", {}, {}, 2);
  op.input_keys = {{"input", "in1"}, {"other", "in0"}};
  const Tensor first = Tensor::FromRowMajor({1.0f, 5.0f}, {2});
  const Tensor second = Tensor::FromRowMajor({3.0f, 3.0f}, {2});
  EXPECT_EQ(RunLayer(op, {first, second})[0].ToRowMajor(), (std::vector<float>{0.0f, 1.0f}));
}

}  // namespace
}  // namespace lumen
