// Tensor.slice against PyTorch: steps, open and negative bounds, several dims.
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

LUMEN_LAYER_CASE_TEST(Slice, slice_multi)
LUMEN_LAYER_CASE_TEST(Slice, slice_negative_start)
LUMEN_LAYER_CASE_TEST(Slice, slice_open_end)
LUMEN_LAYER_CASE_TEST(Slice, slice_step2)

TEST(Slice, RejectsANonPositiveStep) {
  EXPECT_THAT(LayerError(MakeOperator("Tensor.slice", {"dim=1", "start=0", "end=2", "step=0"}),
                         {{1, 4}}, {{1, 2}}),
              HasSubstr("step must be positive, got 0"));
}

TEST(Slice, RejectsAWrongOutputShape) {
  EXPECT_THAT(LayerError(MakeOperator("Tensor.slice", {"dim=1", "start=1", "end=3", "step=1"}),
                         {{1, 4}}, {{1, 3}}),
              HasSubstr("input (1,4) slices to (1,2) but the graph says (1,3)"));
}

}  // namespace
}  // namespace lumen
