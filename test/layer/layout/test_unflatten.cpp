// torch.unflatten: shapes (sizes with and without -1, any dim) against PyTorch's rule, values kept
// in row-major order, and the sizes it refuses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RunLayer;
using ::testing::HasSubstr;

TEST(Unflatten, SplitsOneDimension) {
  EXPECT_EQ(InferShapes(MakeOperator("torch.unflatten", {"dim=1", "sizes=(2,3)"}), {{4, 6, 5}}),
            (std::vector<Shape>{{4, 2, 3, 5}}));
  EXPECT_EQ(InferShapes(MakeOperator("torch.unflatten", {"dim=-1", "sizes=(-1,2)"}), {{4, 6}}),
            (std::vector<Shape>{{4, 3, 2}}));
  const Tensor input = Tensor::FromRowMajor({0, 1, 2, 3, 4, 5}, {6});
  const std::vector<Tensor> outputs =
      RunLayer(MakeOperator("torch.unflatten", {"dim=0", "sizes=(3,2)"}), {input});
  EXPECT_EQ(outputs[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(outputs[0].ToRowMajor(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

TEST(Unflatten, RefusesSizesThatDoNotMultiplyToTheExtent) {
  EXPECT_THAT(LayerError(MakeOperator("torch.unflatten", {"dim=1", "sizes=(2,2)"}), {{4, 6}}),
              HasSubstr("dim 1 of extent 6 of (4,6) cannot be split into sizes (2,2)"));
  EXPECT_THAT(LayerError(MakeOperator("torch.unflatten", {"dim=1", "sizes=(-1,4)"}), {{4, 6}}),
              HasSubstr("cannot be split into sizes (-1,4)"));
  EXPECT_THAT(LayerError(MakeOperator("torch.unflatten", {"dim=0", "sizes=(-1,-1)"}), {{4}}),
              HasSubstr("at most one -1"));
}

}  // namespace
}  // namespace lumen
