// nn.InstanceNorm1d/2d/3d / F.instance_norm against PyTorch: batched and unbatched inputs, with
// and without affine, another eps, running statistics (track_running_stats in eval mode), weight
// and bias operands; shape inference and its errors.
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

LUMEN_LAYER_CASE_TEST(InstanceNorm, instancenorm1d_batch3)
LUMEN_LAYER_CASE_TEST(InstanceNorm, instancenorm1d_unbatched)
LUMEN_LAYER_CASE_TEST(InstanceNorm, instancenorm2d_unbatched)
LUMEN_LAYER_CASE_TEST(InstanceNorm, instancenorm2d_batch2_eps)
LUMEN_LAYER_CASE_TEST(InstanceNorm, instancenorm3d)
LUMEN_LAYER_CASE_TEST(InstanceNorm, instancenorm2d_running_stats)
LUMEN_LAYER_CASE_TEST(InstanceNorm, instancenorm_functional)

TEST(InstanceNorm, IsRegisteredUnderEverySpelling) {
  for (const char* type :
       {"nn.InstanceNorm1d", "nn.InstanceNorm2d", "nn.InstanceNorm3d", "F.instance_norm"}) {
    EXPECT_TRUE(LayerRegistry::Has(type)) << type;
  }
}

TEST(InstanceNorm, InfersTheInputShape) {
  const Node op = MakeOperator("nn.InstanceNorm2d", {"num_features=3", "affine=False"});
  EXPECT_EQ(InferShapes(op, {{2, 3, 5, 6}}), std::vector<Shape>({{2, 3, 5, 6}}));
  EXPECT_EQ(InferShapes(op, {{3, 5, 6}}), std::vector<Shape>({{3, 5, 6}}));
}

TEST(InstanceNorm, RejectsWrongRanksChannelsAndSingleElements) {
  const Node op2d = MakeOperator("nn.InstanceNorm2d", {"num_features=3", "affine=False"});
  EXPECT_THAT(LayerError(op2d, {{2, 3, 4, 5, 6}}),
              HasSubstr("expected a 3-D or 4-D input, got (2,3,4,5,6)"));
  EXPECT_THAT(LayerError(op2d, {{2, 3, 1, 1}}),
              HasSubstr("expected more than 1 spatial element per channel"));
  const Node affine = MakeOperator("nn.InstanceNorm1d", {"num_features=3", "affine=True"},
                                   {{"weight", {{3}, {}}}, {"bias", {{3}, {}}}});
  EXPECT_THAT(LayerError(affine, {{2, 4, 5}}),
              HasSubstr("expected 3 channels (num_features), got input (2,4,5)"));
  // Without weights PyTorch accepts another channel count (it only warns).
  EXPECT_EQ(LayerError(MakeOperator("nn.InstanceNorm1d", {"num_features=3", "affine=False"}),
                       {{2, 4, 5}}),
            "");
  EXPECT_THAT(LayerError(MakeOperator("F.instance_norm", {"weight=None", "bias=None"}), {{2, 4}}),
              HasSubstr("expected an input of shape (N,C,*spatial), got (2,4)"));
}

}  // namespace
}  // namespace lumen
