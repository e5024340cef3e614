// nn.GELU / F.gelu, exact (erf) and approximate='tanh', against PyTorch; its errors.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "layer/layer_registry.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::LayerError;
using test_support::MakeOperator;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Gelu, gelu_module_rank3)
LUMEN_LAYER_CASE_TEST(Gelu, gelu_functional_tanh)
LUMEN_LAYER_CASE_TEST(Gelu, gelu_functional_none)

TEST(Gelu, IsRegisteredUnderEverySpelling) {
  EXPECT_TRUE(LayerRegistry::Has("nn.GELU"));
  EXPECT_TRUE(LayerRegistry::Has("F.gelu"));
}

TEST(Gelu, RejectsAnUnknownApproximation) {
  EXPECT_THAT(LayerError(MakeOperator("nn.GELU", {"approximate=sigmoid"}), {{2, 3}}),
              HasSubstr("approximate must be 'none' or 'tanh', got 'sigmoid'"));
}

}  // namespace
}  // namespace lumen
