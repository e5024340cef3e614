// nn.AdaptiveAvgPool2d against PyTorch: uneven bins, upsampling, None entries.
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

LUMEN_LAYER_CASE_TEST(AdaptiveAveragePooling, adaptive_1x1)
LUMEN_LAYER_CASE_TEST(AdaptiveAveragePooling, adaptive_7_to_4)
LUMEN_LAYER_CASE_TEST(AdaptiveAveragePooling, adaptive_functional)
LUMEN_LAYER_CASE_TEST(AdaptiveAveragePooling, adaptive_keep_height)
LUMEN_LAYER_CASE_TEST(AdaptiveAveragePooling, adaptive_upsampling)

TEST(AdaptiveAveragePooling, RejectsAWrongOutputShape) {
  const RuntimeOperator op = MakeOperator("nn.AdaptiveAvgPool2d", {"output_size=(3,3)"});
  EXPECT_THAT(LayerError(op, {{1, 2, 7, 7}}, {{1, 2, 3, 4}}),
              HasSubstr("gives output (1,2,3,3) but the graph says (1,2,3,4)"));
}

TEST(AdaptiveAveragePooling, RejectsAnInputOfTheWrongRank) {
  const RuntimeOperator op = MakeOperator("nn.AdaptiveAvgPool2d", {"output_size=(1,1)"});
  EXPECT_THAT(LayerError(op, {{1, 2, 7}}, {{1, 2, 1, 1}}),
              HasSubstr("expected one (N,C,H,W) input and one output"));
}

}  // namespace
}  // namespace lumen
