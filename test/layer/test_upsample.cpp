// nn.Upsample / F.upsample / F.interpolate against PyTorch: nearest and bilinear, scale or size,
// align_corners.
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

LUMEN_LAYER_CASE_TEST(Upsample, interpolate_bilinear_scale)
LUMEN_LAYER_CASE_TEST(Upsample, interpolate_recompute)
LUMEN_LAYER_CASE_TEST(Upsample, upsample_bilinear_downscale)
LUMEN_LAYER_CASE_TEST(Upsample, upsample_bilinear_size)
LUMEN_LAYER_CASE_TEST(Upsample, upsample_bilinear_size_corners)
LUMEN_LAYER_CASE_TEST(Upsample, upsample_nearest_fraction)
LUMEN_LAYER_CASE_TEST(Upsample, upsample_nearest_scale3)
LUMEN_LAYER_CASE_TEST(Upsample, upsample_nearest_size)

TEST(Upsample, RejectsBicubic) {
  EXPECT_THAT(LayerError(MakeOperator("nn.Upsample", {"mode=bicubic", "scale_factor=(2.0,2.0)"}),
                         {{1, 2, 3, 3}}, {{1, 2, 6, 6}}),
              HasSubstr("mode 'bicubic' is not supported"));
}

TEST(Upsample, RejectsBothSizeAndScale) {
  EXPECT_THAT(LayerError(MakeOperator("nn.Upsample",
                                      {"mode=nearest", "scale_factor=(2.0,2.0)", "size=(6,6)"}),
                         {{1, 2, 3, 3}}, {{1, 2, 6, 6}}),
              HasSubstr("exactly one of size and scale_factor must be given"));
}

}  // namespace
}  // namespace lumen
