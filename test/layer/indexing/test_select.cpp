// Tensor.select against PyTorch (negative dim and index, the batch dim, the last dim, the LSTM
// classifier's last time step in the corpus), and its errors.
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

LUMEN_LAYER_CASE_TEST(Select, select_negative_dim_index)
LUMEN_LAYER_CASE_TEST(Select, select_batch_dim)
LUMEN_LAYER_CASE_TEST(Select, select_last_dim)
// Rank-0 tensors (what PyTorch returns for x.sum() or a dot product), against PyTorch.
LUMEN_LAYER_CASE_TEST(Select, rank0_select_vector)
LUMEN_LAYER_CASE_TEST(Select, rank0_item_indexing)

TEST(Select, IsRegistered) { EXPECT_TRUE(LayerRegistry::Has("Tensor.select")); }

// x = arange(6).reshape(2, 3): x.select(1, -1) is [2, 5], x.select(0, 1) is [3, 4, 5].
TEST(Select, SelectsByHand) {
  const Tensor input = Tensor::FromRowMajor({0, 1, 2, 3, 4, 5}, {2, 3});
  EXPECT_EQ(RunLayer(MakeOperator("Tensor.select", {"dim=1", "index=-1"}), {input})[0].ToRowMajor(),
            std::vector<float>({2, 5}));
  EXPECT_EQ(RunLayer(MakeOperator("Tensor.select", {"dim=-2", "index=1"}), {input})[0].ToRowMajor(),
            std::vector<float>({3, 4, 5}));
  EXPECT_EQ(InferShapes(MakeOperator("Tensor.select", {"dim=0", "index=0"}), {{4}}),
            std::vector<Shape>({Shape{}}));
}

TEST(Select, RejectsAnIndexOrDimOutOfRange) {
  EXPECT_THAT(LayerError(MakeOperator("Tensor.select", {"dim=1", "index=3"}), {{2, 3}}),
              HasSubstr("index 3 is out of range for dim 1 of extent 3"));
  EXPECT_THAT(LayerError(MakeOperator("Tensor.select", {"dim=1", "index=-4"}), {{2, 3}}),
              HasSubstr("index -4 is out of range"));
  EXPECT_THAT(LayerError(MakeOperator("Tensor.select", {"dim=2", "index=0"}), {{2, 3}}),
              HasSubstr("dim 2 is out of range for a tensor of rank 2"));
}

}  // namespace
}  // namespace lumen
