// torch.permute / Tensor.permute against PyTorch, up to rank 5.
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

LUMEN_LAYER_CASE_TEST(Permute, permute_negative)
LUMEN_LAYER_CASE_TEST(Permute, permute_nhwc)
LUMEN_LAYER_CASE_TEST(Permute, permute_yolo_rank5)

TEST(Permute, KeepsTheBatchFirst) {
  EXPECT_THAT(LayerError(MakeOperator("torch.permute", {"dims=(1,0,2)"}), {{1, 2, 3}}, {{2, 1, 3}}),
              HasSubstr("the batch dimension must stay first"));
}

TEST(Permute, RejectsARepeatedDimension) {
  EXPECT_THAT(LayerError(MakeOperator("torch.permute", {"dims=(0,1,1)"}), {{1, 2, 3}}, {{1, 2, 2}}),
              HasSubstr("dims repeats a dimension"));
}

}  // namespace
}  // namespace lumen
