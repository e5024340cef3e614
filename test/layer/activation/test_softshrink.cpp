// F.softshrink against PyTorch; a negative lambd is refused, as PyTorch refuses it.
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

LUMEN_LAYER_CASE_TEST(Softshrink, softshrink_functional)

TEST(Softshrink, RefusesANegativeLambda) {
  EXPECT_THAT(LayerError(MakeOperator("nn.Softshrink", {"lambd=-0.5"}), {{2, 3}}),
              HasSubstr("lambd must be at least 0, got -0.5"));
}

}  // namespace
}  // namespace lumen
