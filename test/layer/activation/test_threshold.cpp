// F.threshold against PyTorch with a negative threshold and value; both parameters are required.
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

LUMEN_LAYER_CASE_TEST(Threshold, threshold_negative)

TEST(Threshold, NeedsThresholdAndValue) {
  EXPECT_THAT(LayerError(MakeOperator("nn.Threshold", {"threshold=0.1"}), {{2, 3}}),
              HasSubstr("nn.Threshold 'op': missing parameter 'value'"));
}

}  // namespace
}  // namespace lumen
