// nn.PReLU / F.prelu against PyTorch: one slope per channel on ranks 2, 3 and 5, one slope on
// ranks 1 and 4, a weight operand; a single stored slope offered for fusion; shape errors.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

#include "layer/layer_registry.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::LayerError;
using test_support::MakeOperator;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Prelu, prelu_rank3_channels)
LUMEN_LAYER_CASE_TEST(Prelu, prelu_rank2_channels)
LUMEN_LAYER_CASE_TEST(Prelu, prelu_rank5_channels)
LUMEN_LAYER_CASE_TEST(Prelu, prelu_rank4_shared)
LUMEN_LAYER_CASE_TEST(Prelu, prelu_rank1_shared)
LUMEN_LAYER_CASE_TEST(Prelu, prelu_functional)

TEST(Prelu, IsRegisteredUnderEverySpelling) {
  EXPECT_TRUE(LayerRegistry::Has("nn.PReLU"));
  EXPECT_TRUE(LayerRegistry::Has("F.prelu"));
}

// One stored slope is a leaky ReLU, which the layer before may fuse; per-channel slopes are not.
TEST(Prelu, OffersASingleSlopeAsALeakyRelu) {
  const Node single = MakeOperator("nn.PReLU", {"num_parameters=1"}, {{"weight", {{1}, {0.3f}}}});
  const std::unique_ptr<Layer> layer = LayerRegistry::Create(LayerConfig(single));
  ASSERT_NE(layer->ElementwiseActivation(), nullptr);
  EXPECT_EQ(layer->ElementwiseActivation()->kind, Activation::Kind::kLeakyRelu);
  EXPECT_FLOAT_EQ(layer->ElementwiseActivation()->alpha, 0.3f);
  const Node per_channel =
      MakeOperator("nn.PReLU", {"num_parameters=3"}, {{"weight", {{3}, {0.1f, 0.2f, 0.3f}}}});
  EXPECT_EQ(LayerRegistry::Create(LayerConfig(per_channel))->ElementwiseActivation(), nullptr);
}

TEST(Prelu, RejectsASlopeCountThatIsNeitherOneNorTheChannels) {
  const Node op = MakeOperator("nn.PReLU", {"num_parameters=4"}, {{"weight", {{4}, {}}}});
  EXPECT_THAT(LayerError(op, {{2, 5, 7}}),
              HasSubstr("expected 1 slope or one per channel (5 in input (2,5,7)), got 4"));
  // PyTorch gives a 1-D input a single channel.
  EXPECT_THAT(LayerError(op, {{4}}), HasSubstr("(1 in input (4)), got 4"));
  const Node functional = MakeOperator("F.prelu", {}, {}, 2);
  EXPECT_THAT(LayerError(functional, {{2, 5, 7}, {2, 5}}),
              HasSubstr("weight must be a vector, got shape (2,5)"));
}

}  // namespace
}  // namespace lumen
