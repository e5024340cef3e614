// nn.Unfold and nn.Fold by hand (pnnx's own tests of both, golden cases in tmp/pnnx_ops, run
// strides, padding and dilation against PyTorch), and their errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "layer/layer_registry.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::MakeOperator;
using test_support::RunLayer;
using ::testing::HasSubstr;

// F.unfold of a 2x3 plane [[1, 2, 3], [4, 5, 6]] with 2x2 blocks: two blocks, columns
// (1, 2, 4, 5) and (2, 3, 5, 6); F.fold sums them back, the shared middle column twice.
TEST(Fold, UnfoldsAndFoldsBackByHand) {
  const std::vector<Tensor> unfolded =
      RunLayer(MakeOperator("nn.Unfold", {"kernel_size=(2,2)"}),
               {Tensor::FromRowMajor({1, 2, 3, 4, 5, 6}, {1, 1, 2, 3})});
  EXPECT_EQ(unfolded[0].shape(), Shape({1, 4, 2}));
  EXPECT_EQ(unfolded[0].ToRowMajor(), std::vector<float>({1, 2, 2, 3, 4, 5, 5, 6}));
  const std::vector<Tensor> folded =
      RunLayer(MakeOperator("F.fold", {"kernel_size=(2,2)", "output_size=(2,3)"}), unfolded);
  EXPECT_EQ(folded[0].shape(), Shape({1, 1, 2, 3}));
  EXPECT_EQ(folded[0].ToRowMajor(), std::vector<float>({1, 4, 3, 4, 10, 6}));
}

TEST(Fold, RejectsColumnsThatDoNotMatchTheBlocks) {
  EXPECT_THAT(test_support::LayerError(
                  MakeOperator("nn.Fold", {"kernel_size=(2,2)", "output_size=(2,3)"}), {{1, 4, 3}}),
              HasSubstr("L = 2 blocks, got (1,4,3)"));
  EXPECT_THAT(
      test_support::LayerError(MakeOperator("nn.Unfold", {"kernel_size=(3,3)"}), {{1, 1, 2, 2}}),
      HasSubstr("holds no block of the window"));
}

}  // namespace
}  // namespace lumen
