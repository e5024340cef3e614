// torch.flatten against PyTorch, including negative dims.
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

LUMEN_LAYER_CASE_TEST(Flatten, flatten_middle)
LUMEN_LAYER_CASE_TEST(Flatten, flatten_negative)
LUMEN_LAYER_CASE_TEST(Flatten, flatten_start2)

TEST(Flatten, RejectsFlatteningTheBatchDimension) {
  const RuntimeOperator op = MakeOperator("torch.flatten", {"start_dim=0", "end_dim=-1"});
  EXPECT_THAT(LayerError(op, {{2, 3, 4}}, {{24}}),
              HasSubstr("flattening the batch dimension into others is not supported"));
}

TEST(Flatten, RejectsDimensionsOutOfRange) {
  const RuntimeOperator op = MakeOperator("torch.flatten", {"start_dim=1", "end_dim=5"});
  EXPECT_THAT(LayerError(op, {{2, 3, 4}}, {{2, 12}}),
              HasSubstr("start_dim 1 and end_dim 5 do not fit input (2,3,4)"));
}

}  // namespace
}  // namespace lumen
