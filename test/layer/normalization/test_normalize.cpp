// F.normalize against PyTorch: p = 1, 2, 3, 0.5 and inf, dims 0, positive and negative, a norm
// below eps; shape inference and its errors.
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

LUMEN_LAYER_CASE_TEST(Normalize, normalize_dim0_batch3)
LUMEN_LAYER_CASE_TEST(Normalize, normalize_p1_dim2)
LUMEN_LAYER_CASE_TEST(Normalize, normalize_pinf_last)
LUMEN_LAYER_CASE_TEST(Normalize, normalize_p3_dim1)
LUMEN_LAYER_CASE_TEST(Normalize, normalize_p_half_rows)
LUMEN_LAYER_CASE_TEST(Normalize, normalize_eps_clamps)

TEST(Normalize, IsRegistered) { EXPECT_TRUE(LayerRegistry::Has("F.normalize")); }

TEST(Normalize, InfersTheInputShape) {
  EXPECT_EQ(InferShapes(MakeOperator("F.normalize", {"dim=-1", "p=2.0", "eps=1e-12"}), {{2, 7}}),
            std::vector<Shape>({{2, 7}}));
  EXPECT_EQ(InferShapes(MakeOperator("F.normalize", {"dim=(1)", "p=2.0"}), {{2, 7, 3}}),
            std::vector<Shape>({{2, 7, 3}}));
}

TEST(Normalize, RejectsADimOutOfRangeOrSeveralDims) {
  EXPECT_THAT(LayerError(MakeOperator("F.normalize", {"dim=3", "p=2.0"}), {{2, 5, 4}}),
              HasSubstr("dim 3 is out of range for a tensor of rank 3"));
  EXPECT_THAT(LayerError(MakeOperator("F.normalize", {"dim=(1,2)", "p=2.0"}), {{2, 5, 4}}),
              HasSubstr("dim (1,2) is not supported"));
}

}  // namespace
}  // namespace lumen
