// F.grid_sample and F.affine_grid by hand (pnnx's own test, a golden case in tmp/pnnx_ops, runs
// every mode and padding in 2-D and 3-D against PyTorch), and their errors.
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

// A 2x2 map [[1, 2], [3, 4]] sampled at its centre (0, 0): bilinear averages the four pixels
// (2.5); at (1, 1) with align_corners=True it reads the last pixel (4); zeros padding makes
// (3, 0) read 0, border padding clamps it to the right column.
TEST(GridSample, SamplesByHand) {
  const Tensor input = Tensor::FromRowMajor({1, 2, 3, 4}, {1, 1, 2, 2});
  const Tensor grid = Tensor::FromRowMajor({0, 0, 1, 1, 3, 0}, {1, 1, 3, 2});
  std::vector<Tensor> outputs = RunLayer(
      MakeOperator("F.grid_sample", {"mode=bilinear", "padding_mode=zeros", "align_corners=True"}),
      {input, grid});
  EXPECT_EQ(outputs[0].shape(), Shape({1, 1, 1, 3}));
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({2.5f, 4.0f, 0.0f}));
  outputs = RunLayer(
      MakeOperator("F.grid_sample", {"mode=bilinear", "padding_mode=border", "align_corners=True"}),
      {input, grid});
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({2.5f, 4.0f, 3.0f}));
}

TEST(GridSample, RejectsMismatchedGridsAndUnknownModes) {
  EXPECT_THAT(test_support::LayerError(MakeOperator("F.grid_sample", {"mode=bilinear"}),
                                       {{1, 2, 4, 4}, {1, 3, 3, 3}}),
              HasSubstr("expected an (N,C,H,W) input with an (N,H',W',2) grid"));
  EXPECT_THAT(test_support::LayerError(MakeOperator("F.grid_sample", {"mode=bicubic"}),
                                       {{1, 2, 4, 4, 4}, {1, 3, 3, 3, 3}}),
              HasSubstr("bicubic needs a 4-D input"));
  EXPECT_THAT(test_support::LayerError(MakeOperator("F.grid_sample", {"mode=area"}),
                                       {{1, 2, 4, 4}, {1, 3, 3, 2}}),
              HasSubstr("unknown mode 'area'"));
}

// F.affine_grid(torch.tensor([[[1., 0., 0.5], [0., 2., 0.]]]), (1, 1, 1, 2), align_corners=True):
// x runs over linspace(-1, 1, 2), y is 0 (one row), so the points are (-0.5, 0) and (1.5, 0).
TEST(AffineGrid, TransformsTheBaseGridByHand) {
  const std::vector<Tensor> outputs =
      RunLayer(MakeOperator("F.affine_grid", {"size=(1,1,1,2)", "align_corners=True"}),
               {Tensor::FromRowMajor({1, 0, 0.5f, 0, 2, 0}, {1, 2, 3})});
  EXPECT_EQ(outputs[0].shape(), Shape({1, 1, 2, 2}));
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({-0.5f, 0, 1.5f, 0}));
  EXPECT_THAT(
      test_support::LayerError(MakeOperator("F.affine_grid", {"size=(1,1,4,4)"}), {{1, 3, 4}}),
      HasSubstr("expected theta (1,2,3), got (1,3,4)"));
}

}  // namespace
}  // namespace lumen
