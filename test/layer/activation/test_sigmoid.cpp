// nn.Sigmoid / F.sigmoid against PyTorch, including saturation.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gtest/gtest.h>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

LUMEN_LAYER_CASE_TEST(Sigmoid, sigmoid_functional)
LUMEN_LAYER_CASE_TEST(Sigmoid, sigmoid_large)
// Rank-0 tensors (what PyTorch returns for x.sum() or a dot product), against PyTorch.
LUMEN_LAYER_CASE_TEST(Sigmoid, rank0_activation)

}  // namespace
}  // namespace lumen
