// Tensor.reshape / Tensor.view against PyTorch (-1, rank 5, batch 2), and PyTorch's rules at
// sizes the corpus lacks: reshapes across the batch, -1 inference, refusals.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "layer/view_layer.hpp"
#include "support/case_runner.hpp"
#include "support/hand_values.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RunLayer;
using test_support::TestContext;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Reshape, reshape_batch2)
LUMEN_LAYER_CASE_TEST(Reshape, reshape_minus_one)
LUMEN_LAYER_CASE_TEST(Reshape, view_rank5)
// Rank-0 tensors (what PyTorch returns for x.sum() or a dot product), against PyTorch.
LUMEN_LAYER_CASE_TEST(Reshape, rank0_reshape)
LUMEN_LAYER_CASE_TEST(Reshape, rank0_view_minus_one)

// A tensor holding its own row-major index.
Tensor Iota(const Shape& shape) {
  std::vector<float> values(ShapeElementCount(shape));
  std::iota(values.begin(), values.end(), 0.0f);
  return Tensor::FromRowMajor(values, shape);
}

TEST(Reshape, InfersMinusOneAcrossTheBatch) {
  // x.reshape(-1, D) on (B, S, D): the batch is a dimension like any other.
  const Node rows = MakeOperator("Tensor.reshape", {"shape=(-1,8)"});
  EXPECT_EQ(InferShapes(rows, {{3, 5, 8}}), std::vector<Shape>({{15, 8}}));
  EXPECT_EQ(InferShapes(MakeOperator("Tensor.view", {"shape=(-1)"}), {{2, 3}}),
            std::vector<Shape>({{6}}));
  EXPECT_EQ(InferShapes(MakeOperator("torch.reshape", {"shape=6"}), {{2, 3}}),
            std::vector<Shape>({{6}}));
  EXPECT_EQ(InferShapes(MakeOperator("Tensor.view", {"shape=(2,-1,4)"}), {{1, 4, 2, 4}}),
            std::vector<Shape>({{2, 4, 4}}));
}

TEST(Reshape, KeepsTheRowMajorOrder) {
  // Shapes whose last two extents differ, so the storage orders differ too.
  for (const Shape& target :
       {Shape{4, 6}, Shape{3, 8}, Shape{24}, Shape{2, 2, 3, 2}, Shape{1, 24}}) {
    const Tensor input = Iota({2, 3, 4});
    Node op = MakeOperator("Tensor.reshape", {"shape=(" + [&] {
                             std::string text;
                             for (uint32_t extent : target) {
                               if (!text.empty()) text += ",";
                               text += std::to_string(extent);
                             }
                             return text;
                           }() + ")"});
    const std::vector<Tensor> outputs = RunLayer(op, {input});
    ASSERT_EQ(outputs[0].shape(), target);
    EXPECT_EQ(outputs[0].ToRowMajor(), input.ToRowMajor()) << ShapeToString(target);
  }
}

TEST(Reshape, CopiesLargeTensorsOnSeveralThreads) {
  TestContext context(3);
  for (const Shape& target : {Shape{60, 1000}, Shape{6, 10, 1000}, Shape{2, 3, 100, 100}}) {
    const Tensor input = Iota({2, 3, 100, 100});
    Tensor output(target);
    CopyRowMajorOrder(input, &output, context.compute().pool);
    EXPECT_EQ(output.ToRowMajor(), input.ToRowMajor()) << ShapeToString(target);
  }
}

TEST(Reshape, RejectsADifferentElementCount) {
  // A traced shape that no longer fits the input names both.
  EXPECT_THAT(LayerError(MakeOperator("Tensor.reshape", {"shape=(1,7)"}), {{1, 2, 3}}),
              HasSubstr("Tensor.reshape 'op': cannot reshape input (1,2,3) (6 elements) to shape "
                        "(1,7)"));
  EXPECT_THAT(LayerError(MakeOperator("Tensor.view", {"shape=(1,3,85,80,80)"}), {{1, 255, 40, 40}}),
              HasSubstr("cannot reshape input (1,255,40,40) (408000 elements) to shape "
                        "(1,3,85,80,80)"));
  EXPECT_THAT(LayerError(MakeOperator("Tensor.view", {"shape=(-1,4)"}), {{2, 3}}),
              HasSubstr("cannot reshape input (2,3) (6 elements) to shape (-1,4)"));
  // -1 beside a zero extent could be anything.
  EXPECT_THAT(LayerError(MakeOperator("Tensor.view", {"shape=(0,-1)"}), {{0, 3}}),
              HasSubstr("cannot reshape input (0,3) (0 elements) to shape (0,-1)"));
}

TEST(Reshape, RejectsBadTargets) {
  EXPECT_THAT(LayerError(MakeOperator("Tensor.view", {"shape=(1,-1,-1)"}), {{1, 6}}),
              HasSubstr("only one dimension of shape can be -1"));
  EXPECT_THAT(LayerError(MakeOperator("Tensor.view", {"shape=(1,-2)"}), {{1, 6}}),
              HasSubstr("invalid extent -2 in shape (1,-2)"));
  // Hostile: extents whose product overflows are refused, not wrapped around.
  EXPECT_THAT(LayerError(MakeOperator("Tensor.view",
                                      {"shape=(2147483647,2147483647,2147483647,2147483647,4)"}),
                         {{1, 6}}),
              HasSubstr("overflows"));
}

// lumen.Reshape, ONNX's Reshape (onnx.backend.test.case.node.reshape): the target is input 1's
// values; 0 copies the input's extent there unless allowzero=1, and one -1 takes the rest.
TEST(OperandReshape, ReadsItsTargetFromInput1) {
  const Node op = MakeOperator("lumen.Reshape", {}, {}, 2);
  const Tensor input = test_support::Arange({2, 3, 4});
  std::vector<Tensor> outputs = RunLayer(op, {input, Tensor::FromRowMajor({4, -1}, {2})});
  EXPECT_EQ(outputs[0].shape(), Shape({4, 6}));
  EXPECT_EQ(outputs[0].ToRowMajor(), input.ToRowMajor());
  // reshape_reordered_all_dims / reshape_zero_dim: 0 keeps extent 1 of the input.
  outputs = RunLayer(op, {input, Tensor::FromRowMajor({2, 0, 4, 1}, {4})});
  EXPECT_EQ(outputs[0].shape(), Shape({2, 3, 4, 1}));
  outputs = RunLayer(op, {input, Tensor::FromRowMajor({0, -1}, {2})});
  EXPECT_EQ(outputs[0].shape(), Shape({2, 12}));
  // allowzero=1: 0 is an extent (reshape_allowzero_reordered), here of an empty input.
  EXPECT_EQ(RunLayer(MakeOperator("lumen.Reshape", {"allowzero=1"}, {}, 2),
                     {Tensor(Shape{0, 3}), Tensor::FromRowMajor({3, 0}, {2})})[0]
                .shape(),
            Shape({3, 0}));
}

TEST(OperandReshape, RefusesTargetsThatDoNotFit) {
  const Node op = MakeOperator("lumen.Reshape", {}, {}, 2);
  EXPECT_THAT(
      test_support::RunLayerError(op, {Tensor(Shape{2, 3}), Tensor::FromRowMajor({4, -1}, {2})}),
      HasSubstr("cannot reshape input (2,3) (6 elements) to shape (4,-1)"));
  EXPECT_THAT(
      test_support::RunLayerError(op, {Tensor(Shape{2, 3}), Tensor::FromRowMajor({6, 0, 0}, {3})}),
      HasSubstr("copies extent 2 of input (2,3), which has no such dimension"));
  EXPECT_THAT(
      test_support::RunLayerError(op, {Tensor(Shape{2, 3}), Tensor::FromRowMajor({2.5f, -1}, {2})}),
      HasSubstr("the shape (input 1) holds 2.5, which is not a whole number"));
  // Without the values (outside a session's plan) the shape cannot be known.
  EXPECT_THAT(LayerError(op, {{2, 3}, {2}}), HasSubstr("not known here"));
}

}  // namespace
}  // namespace lumen
