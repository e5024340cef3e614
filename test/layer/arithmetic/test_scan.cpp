// torch.cumsum / torch.cumprod against PyTorch (negative dims, the batch dim), shape inference and
// its errors.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
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

LUMEN_LAYER_CASE_TEST(Scan, cumsum_negative_dim)
LUMEN_LAYER_CASE_TEST(Scan, cumprod_batch)

TEST(Scan, KeepsTheInputShape) {
  EXPECT_EQ(InferShapes(MakeOperator("torch.cumsum", {"dim=-1"}), {{2, 3, 4}}),
            (std::vector<Shape>{{2, 3, 4}}));
  EXPECT_EQ(InferShapes(MakeOperator("torch.cumprod", {"dim=0"}), {{}}), (std::vector<Shape>{{}}));
}

TEST(Scan, ScansARowOfAMatrix) {
  const Tensor input = Tensor::FromRowMajor({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(RunLayer(MakeOperator("torch.cumsum", {"dim=1"}), {input})[0].ToRowMajor(),
            (std::vector<float>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(RunLayer(MakeOperator("Tensor.cumprod", {"dim=-2"}), {input})[0].ToRowMajor(),
            (std::vector<float>{1, 2, 3, 4, 10, 18}));
}

TEST(Scan, RefusesADimOutOfRange) {
  EXPECT_THAT(LayerError(MakeOperator("torch.cumsum", {"dim=3"}), {{2, 3, 4}}),
              HasSubstr("torch.cumsum"));
  EXPECT_THAT(LayerError(MakeOperator("torch.cumsum", {}), {{2, 3, 4}}), HasSubstr("dim"));
}

}  // namespace
}  // namespace lumen
