// torch.transpose against PyTorch.
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

LUMEN_LAYER_CASE_TEST(Transpose, transpose_channels_rows)
LUMEN_LAYER_CASE_TEST(Transpose, transpose_last_two)

TEST(Transpose, RejectsTheBatchDimension) {
  EXPECT_THAT(
      LayerError(MakeOperator("torch.transpose", {"dim0=0", "dim1=1"}), {{1, 2, 3}}, {{2, 1, 3}}),
      HasSubstr("operating on the batch dimension (dim 0) is not supported"));
}

}  // namespace
}  // namespace lumen
