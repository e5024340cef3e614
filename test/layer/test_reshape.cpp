// Tensor.reshape / Tensor.view against PyTorch (-1, rank 5, batch 2).
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::LayerError;
using test_support::MakeOperator;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Reshape, reshape_batch2)
LUMEN_LAYER_CASE_TEST(Reshape, reshape_minus_one)
LUMEN_LAYER_CASE_TEST(Reshape, view_rank5)

TEST(Reshape, RejectsADifferentElementCount) {
  EXPECT_THAT(LayerError(MakeOperator("Tensor.reshape", {"shape=(1,7)"}), {{1, 2, 3}}, {{1, 7}}),
              HasSubstr("cannot reshape (1,2,3) (6 elements) to shape (1,7)"));
}

TEST(Reshape, RejectsMovingElementsAcrossTheBatch) {
  EXPECT_THAT(LayerError(MakeOperator("Tensor.view", {"shape=(-1)"}), {{2, 3}}, {{6}}),
              HasSubstr("moves elements across the batch dimension"));
}

TEST(Reshape, RejectsTwoUnknownExtents) {
  EXPECT_THAT(LayerError(MakeOperator("Tensor.view", {"shape=(1,-1,-1)"}), {{1, 6}}, {{1, 2, 3}}),
              HasSubstr("only one dimension of shape can be -1"));
}

}  // namespace
}  // namespace lumen
