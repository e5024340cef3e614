// nn.AvgPool2d against PyTorch: count_include_pad both ways, ceil_mode, divisor_override.
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

LUMEN_LAYER_CASE_TEST(AveragePooling, avgpool_ceil)
LUMEN_LAYER_CASE_TEST(AveragePooling, avgpool_divisor)
LUMEN_LAYER_CASE_TEST(AveragePooling, avgpool_exclude_pad)
LUMEN_LAYER_CASE_TEST(AveragePooling, avgpool_include_pad)

TEST(AveragePooling, RejectsANonPositiveDivisor) {
  const RuntimeOperator op =
      MakeOperator("nn.AvgPool2d", {"kernel_size=(2,2)", "stride=(2,2)", "divisor_override=0"});
  EXPECT_THAT(LayerError(op, {{1, 2, 4, 4}}, {{1, 2, 2, 2}}),
              HasSubstr("divisor_override must be positive"));
}

TEST(AveragePooling, RejectsAWrongOutputShape) {
  const RuntimeOperator op = MakeOperator("nn.AvgPool2d", {"kernel_size=(2,2)", "stride=(2,2)"});
  EXPECT_THAT(LayerError(op, {{1, 2, 4, 4}}, {{1, 2, 4, 4}}),
              HasSubstr("gives output (1,2,2,2) but the graph says (1,2,4,4)"));
}

}  // namespace
}  // namespace lumen
