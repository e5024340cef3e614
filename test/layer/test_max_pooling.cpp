// nn.MaxPool2d against PyTorch (ceil_mode, padding, dilation, NaN) and its errors.
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

LUMEN_LAYER_CASE_TEST(MaxPooling, maxpool_ceil_odd)
LUMEN_LAYER_CASE_TEST(MaxPooling, maxpool_dilation2)
LUMEN_LAYER_CASE_TEST(MaxPooling, maxpool_functional_default_stride)
LUMEN_LAYER_CASE_TEST(MaxPooling, maxpool_k5_s1_p2)
LUMEN_LAYER_CASE_TEST(MaxPooling, maxpool_nan)
LUMEN_LAYER_CASE_TEST(MaxPooling, maxpool_padding)

TEST(MaxPooling, RejectsReturnIndices) {
  const RuntimeOperator op =
      MakeOperator("nn.MaxPool2d", {"kernel_size=(2,2)", "stride=(2,2)", "return_indices=True"});
  EXPECT_THAT(LayerError(op, {{1, 2, 4, 4}}, {{1, 2, 2, 2}}),
              HasSubstr("return_indices=True is not supported"));
}

TEST(MaxPooling, RejectsPaddingLargerThanHalfTheKernel) {
  const RuntimeOperator op =
      MakeOperator("nn.MaxPool2d", {"kernel_size=(2,2)", "stride=(2,2)", "padding=(2,2)"});
  EXPECT_THAT(LayerError(op, {{1, 2, 4, 4}}, {{1, 2, 4, 4}}),
              HasSubstr("padding must be at most half the kernel size"));
}

TEST(MaxPooling, RejectsAWrongOutputShape) {
  const RuntimeOperator op = MakeOperator("nn.MaxPool2d", {"kernel_size=(2,2)", "stride=(2,2)"});
  EXPECT_THAT(LayerError(op, {{1, 2, 5, 5}}, {{1, 2, 3, 3}}),
              HasSubstr("input (1,2,5,5) gives output (1,2,2,2) but the graph says (1,2,3,3)"));
}

}  // namespace
}  // namespace lumen
