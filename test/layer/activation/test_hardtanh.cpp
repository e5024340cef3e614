// nn.Hardtanh / F.hardtanh with default and other bounds against PyTorch.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gtest/gtest.h>

#include "layer/layer_registry.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace {

LUMEN_LAYER_CASE_TEST(Hardtanh, hardtanh_default)
LUMEN_LAYER_CASE_TEST(Hardtanh, hardtanh_functional)

TEST(Hardtanh, IsRegisteredUnderEverySpelling) {
  EXPECT_TRUE(LayerRegistry::Has("nn.Hardtanh"));
  EXPECT_TRUE(LayerRegistry::Has("F.hardtanh"));
}

}  // namespace
}  // namespace lumen
