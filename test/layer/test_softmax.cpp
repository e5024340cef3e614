// nn.Softmax / F.softmax on several dims against PyTorch.
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

LUMEN_LAYER_CASE_TEST(Softmax, softmax_dim1)
LUMEN_LAYER_CASE_TEST(Softmax, softmax_dim2)
LUMEN_LAYER_CASE_TEST(Softmax, softmax_last)
LUMEN_LAYER_CASE_TEST(Softmax, softmax_rank3)

TEST(Softmax, RejectsTheBatchDimension) {
  EXPECT_THAT(LayerError(MakeOperator("nn.Softmax", {"dim=0"}), {{2, 5}}, {{2, 5}}),
              HasSubstr("operating on the batch dimension (dim 0) is not supported"));
}

}  // namespace
}  // namespace lumen
