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

// lumen.Expand, ONNX's Expand (onnx.backend.test.case.node.expand): the input and input 1's values
// broadcast both ways, so a 1 there keeps the input's extent and the target may be shorter.
TEST(OperandExpand, BroadcastsBothWays) {
  const Node op = MakeOperator("lumen.Expand", {}, {}, 2);
  const Tensor column = Tensor::FromRowMajor({1, 2, 3}, {3, 1});
  // expand_dim_changed: (3,1) to (2,1,6) is (2,3,6).
  std::vector<Tensor> outputs = RunLayer(op, {column, Tensor::FromRowMajor({2, 1, 6}, {3})});
  EXPECT_EQ(outputs[0].shape(), Shape({2, 3, 6}));
  EXPECT_EQ(outputs[0].ToRowMajor()[6], 2.0f);
  // expand_dim_unchanged: (3,1) to (3,4); a shorter target (4) broadcasts as (1,4).
  EXPECT_EQ(RunLayer(op, {column, Tensor::FromRowMajor({3, 4}, {2})})[0].shape(), Shape({3, 4}));
  EXPECT_EQ(RunLayer(op, {column, Tensor::FromRowMajor({4}, {1})})[0].shape(), Shape({3, 4}));
  EXPECT_THAT(test_support::RunLayerError(op, {column, Tensor::FromRowMajor({2, 4}, {2})}),
              HasSubstr("cannot expand (3,1)"));
}

}  // namespace
}  // namespace lumen
