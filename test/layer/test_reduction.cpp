// torch.mean / torch.sum over dims, with and without keepdim, against PyTorch.
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

LUMEN_LAYER_CASE_TEST(Reduction, mean_rows_keepdim)
LUMEN_LAYER_CASE_TEST(Reduction, mean_spatial)
LUMEN_LAYER_CASE_TEST(Reduction, mean_spatial_keepdim)
LUMEN_LAYER_CASE_TEST(Reduction, sum_channels)
LUMEN_LAYER_CASE_TEST(Reduction, sum_last)

TEST(Reduction, RejectsAWrongOutputShape) {
  EXPECT_THAT(LayerError(MakeOperator("torch.mean", {"dim=(2,3)", "keepdim=True"}), {{1, 4, 5, 6}},
                         {{1, 4}}),
              HasSubstr("reduces to (1,4,1,1) but the graph says (1,4)"));
}

}  // namespace
}  // namespace lumen
