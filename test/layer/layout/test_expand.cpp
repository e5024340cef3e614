// Tensor.expand and Tensor.expand_as against PyTorch: -1 sizes, new leading dimensions, the last
// dimension; and the shapes PyTorch refuses.
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

LUMEN_LAYER_CASE_TEST(Expand, expand_new_leading_dims)
LUMEN_LAYER_CASE_TEST(Expand, expand_last_dim)
LUMEN_LAYER_CASE_TEST(Expand, expand_as)
// Rank-0 tensors (what PyTorch returns for x.sum() or a dot product), against PyTorch.
LUMEN_LAYER_CASE_TEST(Expand, rank0_expand)

TEST(Expand, RegistersBothSpellings) {
  EXPECT_TRUE(LayerRegistry::Has("Tensor.expand"));
  EXPECT_TRUE(LayerRegistry::Has("Tensor.expand_as"));
}

// torch.tensor([[1.],[2.]]).expand(2, 2, 3) is [[[1,1,1],[2,2,2]]] twice.
TEST(Expand, ExpandsByHand) {
  const std::vector<Tensor> outputs = RunLayer(MakeOperator("Tensor.expand", {"sizes=(2,-1,3)"}),
                                               {Tensor::FromRowMajor({1, 2}, {2, 1})});
  EXPECT_EQ(outputs[0].shape(), Shape({2, 2, 3}));
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(InferShapes(MakeOperator("Tensor.expand_as", {}, {}, 2), {{3, 1}, {2, 3, 4}}),
            std::vector<Shape>({{2, 3, 4}}));
}

TEST(Expand, RejectsWhatPyTorchRejects) {
  EXPECT_THAT(LayerError(MakeOperator("Tensor.expand", {"sizes=(4,5)"}), {{2, 5}}),
              HasSubstr("cannot expand (2,5) to (4,5): dimension 0 has extent 2"));
  EXPECT_THAT(LayerError(MakeOperator("Tensor.expand", {"sizes=(5)"}), {{2, 5}}),
              HasSubstr("must be at least the input's rank 2"));
  EXPECT_THAT(LayerError(MakeOperator("Tensor.expand", {"sizes=(-1,2,5)"}), {{2, 5}}),
              HasSubstr("size -1 is not allowed for the new leading dimension 0"));
}

}  // namespace
}  // namespace lumen
