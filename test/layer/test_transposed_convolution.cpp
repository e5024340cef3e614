// nn.ConvTranspose2d against PyTorch: groups, dilation, output_padding, non-square.
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

LUMEN_LAYER_CASE_TEST(TransposedConvolution, deconv_dilation2)
LUMEN_LAYER_CASE_TEST(TransposedConvolution, deconv_groups2)
LUMEN_LAYER_CASE_TEST(TransposedConvolution, deconv_k4_s2_p1)
LUMEN_LAYER_CASE_TEST(TransposedConvolution, deconv_nobias_odd)

TEST(TransposedConvolution, RejectsOutputPaddingNotBelowStride) {
  const RuntimeOperator op = MakeOperator(
      "nn.ConvTranspose2d",
      {"in_channels=2", "out_channels=2", "kernel_size=(3,3)", "stride=(2,2)", "padding=(1,1)",
       "output_padding=(2,2)", "dilation=(1,1)", "groups=1", "bias=False"},
      {{"weight", {{2, 2, 3, 3}, {}}}});
  EXPECT_THAT(LayerError(op, {{1, 2, 4, 4}}, {{1, 2, 9, 9}}),
              HasSubstr("output_padding must be smaller than either stride or dilation"));
}

}  // namespace
}  // namespace lumen
