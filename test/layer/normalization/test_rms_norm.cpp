// nn.RMSNorm / F.rms_norm against PyTorch's formula x * rsqrt(mean(x^2) + eps) * weight (the
// installed PyTorch 1.13 has no RMSNorm): eps None (float32's epsilon), a weight of rank 2, no
// weight, a weight operand; shape inference and its errors.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "layer/layer_registry.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(RmsNorm, rmsnorm_last_eps_none)
LUMEN_LAYER_CASE_TEST(RmsNorm, rmsnorm_last2_eps)
LUMEN_LAYER_CASE_TEST(RmsNorm, rmsnorm_no_weight)
LUMEN_LAYER_CASE_TEST(RmsNorm, rmsnorm_functional)

TEST(RmsNorm, IsRegisteredUnderEverySpelling) {
  EXPECT_TRUE(LayerRegistry::Has("nn.RMSNorm"));
  EXPECT_TRUE(LayerRegistry::Has("F.rms_norm"));
}

TEST(RmsNorm, InfersTheInputShape) {
  const Node op = MakeOperator("nn.RMSNorm", {"normalized_shape=(6)", "eps=None"});
  EXPECT_EQ(InferShapes(op, {{2, 9, 6}}), std::vector<Shape>({{2, 9, 6}}));
}

TEST(RmsNorm, RejectsAMismatchedInputOrWeight) {
  EXPECT_THAT(
      LayerError(MakeOperator("nn.RMSNorm", {"normalized_shape=(6)", "eps=None"}), {{2, 6, 5}}),
      HasSubstr("normalized_shape (6), got (2,6,5)"));
  EXPECT_THAT(LayerError(MakeOperator("nn.RMSNorm", {"normalized_shape=(6)", "eps=None"},
                                      {{"weight", {{5}, {}}}}),
                         {{2, 6}}),
              HasSubstr("weight '@weight' has shape (5) but the parameters imply (6)"));
  EXPECT_THAT(
      LayerError(MakeOperator("nn.RMSNorm", {"normalized_shape=(6)", "eps=-1.0"}), {{2, 6}}),
      HasSubstr("eps must be >= 0"));
}

}  // namespace
}  // namespace lumen
