// nn.AdaptiveMaxPool2d / F.adaptive_max_pool2d against PyTorch: uneven overlapping bins, None
// entries, upsampling, an int size, batches, the unbatched form, NaN; and its errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "layer/layer_registry.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RunLayer;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(AdaptiveMaxPooling, adaptive_max_batch2_uneven)
LUMEN_LAYER_CASE_TEST(AdaptiveMaxPooling, adaptive_max_keep_width)
LUMEN_LAYER_CASE_TEST(AdaptiveMaxPooling, adaptive_max_upsampling)
LUMEN_LAYER_CASE_TEST(AdaptiveMaxPooling, adaptive_max_functional_int)
LUMEN_LAYER_CASE_TEST(AdaptiveMaxPooling, adaptive_max_unbatched)
LUMEN_LAYER_CASE_TEST(AdaptiveMaxPooling, adaptive_max_nan)

TEST(AdaptiveMaxPooling, RegistersBothSpellings) {
  EXPECT_TRUE(LayerRegistry::Has("nn.AdaptiveMaxPool2d"));
  EXPECT_TRUE(LayerRegistry::Has("F.adaptive_max_pool2d"));
}

// F.adaptive_max_pool2d(torch.tensor([[[1., 9., 2.], [4., 3., 8.]]]), (1, 2)) is [[[9., 9.]]]:
// the bins of 3 columns into 2 are [0, 2) and [1, 3), overlapping on the middle one.
TEST(AdaptiveMaxPooling, PoolsOverlappingBinsByHand) {
  const std::vector<Tensor> outputs =
      RunLayer(MakeOperator("F.adaptive_max_pool2d", {"output_size=(1,2)"}),
               {Tensor::FromRowMajor({1, 9, 2, 4, 3, 8}, {1, 2, 3})});
  EXPECT_EQ(outputs[0].shape(), Shape({1, 1, 2}));
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({9, 9}));
  EXPECT_EQ(
      InferShapes(MakeOperator("nn.AdaptiveMaxPool2d", {"output_size=(None,2)"}), {{2, 3, 7, 9}}),
      std::vector<Shape>({{2, 3, 7, 2}}));
}

// F.adaptive_max_pool2d(x, (1, 2), return_indices=True) on [[[1, 9, 2], [4, 3, 8]]]: the
// maxima 9 and 9 both at flattened position 1 (the first maximum wins the tie), and on the 1-D
// form positions count along L only.
TEST(AdaptiveMaxPooling, ReturnsPyTorchsIndices) {
  std::vector<Tensor> outputs =
      RunLayer(MakeOperator("F.adaptive_max_pool2d", {"output_size=(1,2)", "return_indices=True"}),
               {Tensor::FromRowMajor({1, 9, 2, 4, 3, 9}, {1, 2, 3})});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({9, 9}));
  EXPECT_EQ(outputs[1].ToRowMajor(), std::vector<float>({1, 1}));
  outputs =
      RunLayer(MakeOperator("nn.AdaptiveMaxPool1d", {"output_size=(2)", "return_indices=True"}),
               {Tensor::FromRowMajor({1, 9, 2, 4, 3, 8}, {2, 3})});
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({9, 9, 4, 8}));
  EXPECT_EQ(outputs[1].ToRowMajor(), std::vector<float>({1, 1, 0, 2}));
  // Depth too: (1, 2, 1, 2) -> (1, 1, 1, 1) picks 7 at position 2.
  outputs = RunLayer(MakeOperator("nn.AdaptiveMaxPool3d", {"output_size=1", "return_indices=True"}),
                     {Tensor::FromRowMajor({1, 5, 7, 2}, {1, 2, 1, 2})});
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({7}));
  EXPECT_EQ(outputs[1].ToRowMajor(), std::vector<float>({2}));
}

TEST(AdaptiveMaxPooling, RejectsBadSizes) {
  EXPECT_THAT(
      LayerError(MakeOperator("nn.AdaptiveMaxPool2d", {"output_size=(-2,3)"}), {{1, 2, 7, 7}}),
      HasSubstr("output_size must be positive"));
  EXPECT_THAT(LayerError(MakeOperator("nn.AdaptiveMaxPool2d", {"output_size=(2,2)"}), {{7, 7}}),
              HasSubstr("expected a (C,H,W) or (N,C,H,W) input"));
}

}  // namespace
}  // namespace lumen
