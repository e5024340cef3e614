// nn.Tanhshrink against PyTorch.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gtest/gtest.h>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

LUMEN_LAYER_CASE_TEST(Tanhshrink, tanhshrink_module)

}  // namespace
}  // namespace lumen
