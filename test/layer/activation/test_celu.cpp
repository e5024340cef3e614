// nn.CELU / F.celu against PyTorch with the default and another alpha; alpha 0 is refused.
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

LUMEN_LAYER_CASE_TEST(Celu, celu_default)
LUMEN_LAYER_CASE_TEST(Celu, celu_functional_alpha)

// PyTorch divides by alpha and refuses 0.
TEST(Celu, RefusesAlphaZero) {
  EXPECT_THAT(LayerError(MakeOperator("nn.CELU", {"alpha=0.0"}), {{2, 3}}),
              HasSubstr("nn.CELU 'op': alpha must not be 0"));
}

}  // namespace
}  // namespace lumen
