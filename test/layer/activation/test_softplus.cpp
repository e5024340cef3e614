// nn.Softplus / F.softplus against PyTorch: default beta and threshold, other ones, and large
// magnitudes on both sides of the threshold.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gtest/gtest.h>

#include "layer/layer_registry.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace {

LUMEN_LAYER_CASE_TEST(Softplus, softplus_default)
LUMEN_LAYER_CASE_TEST(Softplus, softplus_functional)
LUMEN_LAYER_CASE_TEST(Softplus, softplus_large)

TEST(Softplus, IsRegisteredUnderEverySpelling) {
  EXPECT_TRUE(LayerRegistry::Has("nn.Softplus"));
  EXPECT_TRUE(LayerRegistry::Has("F.softplus"));
}

}  // namespace
}  // namespace lumen
