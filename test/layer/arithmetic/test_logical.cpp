// torch.logical_and, _or, _xor, _not against PyTorch on floats: broadcasting, and any nonzero
// value (NaN included) is true.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gtest/gtest.h>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

LUMEN_LAYER_CASE_TEST(Logical, logical_and_broadcast)
LUMEN_LAYER_CASE_TEST(Logical, logical_or_broadcast)
LUMEN_LAYER_CASE_TEST(Logical, logical_xor_broadcast)
LUMEN_LAYER_CASE_TEST(Logical, logical_not_floats)

}  // namespace
}  // namespace lumen
