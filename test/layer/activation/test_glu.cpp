// nn.GLU / F.glu against PyTorch along the last, a negative and the batch dim; shape inference
// and the odd extent PyTorch refuses.
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
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Glu, glu_default_dim)
LUMEN_LAYER_CASE_TEST(Glu, glu_negative_dim)
LUMEN_LAYER_CASE_TEST(Glu, glu_batch_dim)

TEST(Glu, HalvesTheDimension) {
  EXPECT_EQ(InferShapes(MakeOperator("nn.GLU", {}), {{2, 3, 8}}), (std::vector<Shape>{{2, 3, 4}}));
  EXPECT_EQ(InferShapes(MakeOperator("F.glu", {"dim=-2"}), {{2, 6, 5}}),
            (std::vector<Shape>{{2, 3, 5}}));
}

TEST(Glu, RefusesAnOddExtentAndAScalar) {
  EXPECT_THAT(LayerError(MakeOperator("nn.GLU", {"dim=1"}), {{2, 5, 4}}),
              HasSubstr("dim 1 of input (2,5,4) must have an even extent"));
  EXPECT_THAT(LayerError(MakeOperator("nn.GLU", {"dim=3"}), {{2, 5, 4}}), HasSubstr("dim"));
  EXPECT_THAT(LayerError(MakeOperator("nn.GLU", {}), {{}}), HasSubstr("rank-0"));
}

}  // namespace
}  // namespace lumen
