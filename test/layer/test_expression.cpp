// pnnx.Expression against PyTorch: every function pnnx can emit, constants, broadcasting up to
// rank 5.
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

LUMEN_LAYER_CASE_TEST(Expression, expr_abs)
LUMEN_LAYER_CASE_TEST(Expression, expr_acos)
LUMEN_LAYER_CASE_TEST(Expression, expr_acosh)
LUMEN_LAYER_CASE_TEST(Expression, expr_add)
LUMEN_LAYER_CASE_TEST(Expression, expr_asin)
LUMEN_LAYER_CASE_TEST(Expression, expr_asinh)
LUMEN_LAYER_CASE_TEST(Expression, expr_atan)
LUMEN_LAYER_CASE_TEST(Expression, expr_atanh)
LUMEN_LAYER_CASE_TEST(Expression, expr_attribute_batch1)
LUMEN_LAYER_CASE_TEST(Expression, expr_attribute_no_batch)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_add)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_atan2)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_div)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_floor_divide)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_fmod)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_logaddexp)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_max)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_maximum)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_min)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_minimum)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_mul)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_pow)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_remainder)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_sub)
LUMEN_LAYER_CASE_TEST(Expression, expr_broadcast_batch)
LUMEN_LAYER_CASE_TEST(Expression, expr_broadcast_channel)
LUMEN_LAYER_CASE_TEST(Expression, expr_broadcast_column)
LUMEN_LAYER_CASE_TEST(Expression, expr_broadcast_plane)
LUMEN_LAYER_CASE_TEST(Expression, expr_broadcast_row)
LUMEN_LAYER_CASE_TEST(Expression, expr_ceil)
LUMEN_LAYER_CASE_TEST(Expression, expr_constants)
LUMEN_LAYER_CASE_TEST(Expression, expr_cos)
LUMEN_LAYER_CASE_TEST(Expression, expr_cosh)
LUMEN_LAYER_CASE_TEST(Expression, expr_erf)
LUMEN_LAYER_CASE_TEST(Expression, expr_exp)
LUMEN_LAYER_CASE_TEST(Expression, expr_expm1)
LUMEN_LAYER_CASE_TEST(Expression, expr_exponent_constants)
LUMEN_LAYER_CASE_TEST(Expression, expr_floor)
LUMEN_LAYER_CASE_TEST(Expression, expr_log)
LUMEN_LAYER_CASE_TEST(Expression, expr_log10)
LUMEN_LAYER_CASE_TEST(Expression, expr_log1p)
LUMEN_LAYER_CASE_TEST(Expression, expr_neg)
LUMEN_LAYER_CASE_TEST(Expression, expr_nested)
LUMEN_LAYER_CASE_TEST(Expression, expr_rank5)
LUMEN_LAYER_CASE_TEST(Expression, expr_reciprocal)
LUMEN_LAYER_CASE_TEST(Expression, expr_reuse)
LUMEN_LAYER_CASE_TEST(Expression, expr_round_halves)
LUMEN_LAYER_CASE_TEST(Expression, expr_rsqrt)
LUMEN_LAYER_CASE_TEST(Expression, expr_sign)
LUMEN_LAYER_CASE_TEST(Expression, expr_sin)
LUMEN_LAYER_CASE_TEST(Expression, expr_sinh)
LUMEN_LAYER_CASE_TEST(Expression, expr_sqrt)
LUMEN_LAYER_CASE_TEST(Expression, expr_square)
LUMEN_LAYER_CASE_TEST(Expression, expr_sub_div)
LUMEN_LAYER_CASE_TEST(Expression, expr_tan)
LUMEN_LAYER_CASE_TEST(Expression, expr_tanh)
LUMEN_LAYER_CASE_TEST(Expression, expr_trunc)
LUMEN_LAYER_CASE_TEST(Expression, expr_yolo_wh)
LUMEN_LAYER_CASE_TEST(Expression, expr_yolo_xy)

TEST(Expression, RejectsShapesThatDoNotBroadcast) {
  const RuntimeOperator op = MakeOperator("pnnx.Expression", {"expr=add(@0,@1)"});
  EXPECT_THAT(LayerError(op, {{1, 3, 4}, {1, 2, 4}}, {{1, 3, 4}}),
              HasSubstr("shapes (3,4) and (2,4) cannot be broadcast together"));
}

TEST(Expression, RejectsTooFewInputs) {
  const RuntimeOperator op = MakeOperator("pnnx.Expression", {"expr=add(@0,@2)"});
  EXPECT_THAT(LayerError(op, {{1, 3}, {1, 3}}, {{1, 3}}), HasSubstr("uses 3 input(s)"));
}

TEST(Expression, RejectsAMalformedExpressionWhenBuilt) {
  EXPECT_THAT(LayerError(MakeOperator("pnnx.Expression", {"expr=add(@0,"}), {{1, 3}}, {{1, 3}}),
              HasSubstr("pnnx.Expression 'op': expression 'add(@0,'"));
}

}  // namespace
}  // namespace lumen
