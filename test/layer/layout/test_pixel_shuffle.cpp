// nn.PixelShuffle / nn.PixelUnshuffle (and their F. spellings) against PyTorch: factors 2 and 3,
// batches, extra leading dimensions, the unbatched form; a round trip; and their errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "layer/layer_registry.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RunLayer;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(PixelShuffle, pixelshuffle3_batch2)
LUMEN_LAYER_CASE_TEST(PixelShuffle, pixelshuffle_rank5)
LUMEN_LAYER_CASE_TEST(PixelShuffle, pixelshuffle_unbatched)
LUMEN_LAYER_CASE_TEST(PixelShuffle, pixelunshuffle3_batch2)
LUMEN_LAYER_CASE_TEST(PixelShuffle, pixelunshuffle_rank5)

TEST(PixelShuffle, RegistersEverySpelling) {
  for (const char* type :
       {"nn.PixelShuffle", "F.pixel_shuffle", "nn.PixelUnshuffle", "F.pixel_unshuffle"}) {
    EXPECT_TRUE(LayerRegistry::Has(type)) << type;
  }
}

// F.pixel_shuffle(arange(8).reshape(1, 4, 1, 2), 2) is [[[[0,1,4,5],[2,3,6,7]]]]; unshuffling
// gives the input back.
TEST(PixelShuffle, ShufflesByHandAndBack) {
  const Tensor input = Tensor::FromRowMajor({0, 1, 2, 3, 4, 5, 6, 7}, {1, 4, 1, 2});
  const std::vector<Tensor> shuffled =
      RunLayer(MakeOperator("nn.PixelShuffle", {"upscale_factor=2"}), {input});
  EXPECT_EQ(shuffled[0].shape(), Shape({1, 1, 2, 4}));
  EXPECT_EQ(shuffled[0].ToRowMajor(), std::vector<float>({0, 2, 1, 3, 4, 6, 5, 7}));
  const std::vector<Tensor> back =
      RunLayer(MakeOperator("F.pixel_unshuffle", {"downscale_factor=2"}), {shuffled[0]});
  EXPECT_EQ(back[0].shape(), input.shape());
  EXPECT_EQ(back[0].ToRowMajor(), input.ToRowMajor());
}

TEST(PixelShuffle, RejectsShapesThatDoNotDivide) {
  EXPECT_THAT(LayerError(MakeOperator("nn.PixelShuffle", {"upscale_factor=2"}), {{1, 6, 2, 2}}),
              HasSubstr("must be a multiple of the upscale factor squared, 4"));
  EXPECT_THAT(LayerError(MakeOperator("nn.PixelUnshuffle", {"downscale_factor=2"}), {{1, 1, 3, 4}}),
              HasSubstr("must be multiples of the downscale factor 2"));
  EXPECT_THAT(LayerError(MakeOperator("nn.PixelShuffle", {"upscale_factor=2"}), {{4, 2}}),
              HasSubstr("expected an input of rank 3 or more"));
  EXPECT_THAT(LayerError(MakeOperator("nn.PixelShuffle", {"upscale_factor=0"}), {{4, 2, 2}}),
              HasSubstr("the factor must be positive"));
}

}  // namespace
}  // namespace lumen
