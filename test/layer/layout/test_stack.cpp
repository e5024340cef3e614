// torch.stack against PyTorch: a new first, middle, second-to-last and last dimension (the last
// two change the memory layout of every input), 2 to 4 inputs, vectors; and its errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "layer/layer_registry.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RunLayer;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Stack, stack3_last)
LUMEN_LAYER_CASE_TEST(Stack, stack2_dim0)
LUMEN_LAYER_CASE_TEST(Stack, stack4_rows)
LUMEN_LAYER_CASE_TEST(Stack, stack_vectors)
// Rank-0 tensors (what PyTorch returns for x.sum() or a dot product), against PyTorch.
LUMEN_LAYER_CASE_TEST(Stack, rank0_stack)

TEST(Stack, IsRegistered) { EXPECT_TRUE(LayerRegistry::Has("torch.stack")); }

// torch.stack(([1,2,3], [4,5,6]), -1) is [[1,4],[2,5],[3,6]]; with dim 0 it is the two rows.
TEST(Stack, StacksByHand) {
  const Tensor a = Tensor::FromRowMajor({1, 2, 3}, {3});
  const Tensor b = Tensor::FromRowMajor({4, 5, 6}, {3});
  const std::vector<Tensor> last = RunLayer(MakeOperator("torch.stack", {"dim=-1"}, {}, 2), {a, b});
  EXPECT_EQ(last[0].shape(), Shape({3, 2}));
  EXPECT_EQ(last[0].ToRowMajor(), std::vector<float>({1, 4, 2, 5, 3, 6}));
  const std::vector<Tensor> first = RunLayer(MakeOperator("torch.stack", {"dim=0"}, {}, 2), {a, b});
  EXPECT_EQ(first[0].ToRowMajor(), std::vector<float>({1, 2, 3, 4, 5, 6}));
}

TEST(Stack, RejectsDifferentShapesAndBadDims) {
  EXPECT_THAT(LayerError(MakeOperator("torch.stack", {"dim=0"}, {}, 2), {{2, 3}, {3, 2}}),
              HasSubstr("every input must have the same shape"));
  EXPECT_THAT(LayerError(MakeOperator("torch.stack", {"dim=3"}, {}, 2), {{2, 3}, {2, 3}}),
              HasSubstr("dim 3 is out of range"));
}

}  // namespace
}  // namespace lumen
