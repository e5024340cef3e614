// nn.Mish / F.mish against PyTorch, on magnitudes large enough to overflow exp.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gtest/gtest.h>

#include "layer/layer_registry.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace {

LUMEN_LAYER_CASE_TEST(Mish, mish_functional_large)

TEST(Mish, IsRegisteredUnderEverySpelling) {
  EXPECT_TRUE(LayerRegistry::Has("nn.Mish"));
  EXPECT_TRUE(LayerRegistry::Has("F.mish"));
}

}  // namespace
}  // namespace lumen
