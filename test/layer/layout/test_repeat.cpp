// Tensor.repeat against PyTorch: repeats longer than the rank, the batch dimension, the last two
// dimensions; and its errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "layer/layer_registry.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RunLayer;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Repeat, repeat_longer_than_rank)
LUMEN_LAYER_CASE_TEST(Repeat, repeat_batch)

TEST(Repeat, IsRegistered) { EXPECT_TRUE(LayerRegistry::Has("Tensor.repeat")); }

// torch.tensor([1., 2.]).repeat(2, 2) is [[1,2,1,2],[1,2,1,2]]; a repeat of 0 empties the dim.
TEST(Repeat, RepeatsByHand) {
  const std::vector<Tensor> outputs =
      RunLayer(MakeOperator("Tensor.repeat", {"sizes=(2,2)"}), {Tensor::FromRowMajor({1, 2}, {2})});
  EXPECT_EQ(outputs[0].shape(), Shape({2, 4}));
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({1, 2, 1, 2, 1, 2, 1, 2}));
  EXPECT_EQ(InferShapes(MakeOperator("Tensor.repeat", {"sizes=(0,3)"}), {{2, 5}}),
            std::vector<Shape>({{0, 15}}));
}

TEST(Repeat, RejectsFewerRepeatsThanDimensions) {
  EXPECT_THAT(LayerError(MakeOperator("Tensor.repeat", {"sizes=(2,2)"}), {{2, 3, 4}}),
              HasSubstr("the number of repeats (2) must be at least the input's rank 3"));
  EXPECT_THAT(LayerError(MakeOperator("Tensor.repeat", {"sizes=(2,-1)"}), {{2, 3}}),
              HasSubstr("repeats must not be negative"));
}

}  // namespace
}  // namespace lumen
