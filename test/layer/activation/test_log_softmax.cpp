// nn.LogSoftmax / F.log_softmax against PyTorch: values far apart (finite where the softmax is 0),
// the last dim, and PyTorch's implicit dim (dim=None).
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gtest/gtest.h>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

LUMEN_LAYER_CASE_TEST(LogSoftmax, log_softmax_far_apart)
LUMEN_LAYER_CASE_TEST(LogSoftmax, log_softmax_last_dim)
LUMEN_LAYER_CASE_TEST(LogSoftmax, log_softmax_implicit_dim)

}  // namespace
}  // namespace lumen
