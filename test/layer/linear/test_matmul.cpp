// torch.matmul, torch.bmm and torch.mm against PyTorch: 1-D operands, broadcast batch dimensions,
// products shared among threads in both ways; shape inference for other sizes and its errors.
// torch.mv, F.linear (weight and bias as operands) and torch.addmm (alpha, beta, a broadcast
// input) against PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "support/case_runner.hpp"
#include "support/sequence_layer_cases.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RunLayer;
using ::testing::HasSubstr;

LUMEN_CORPUS_CASE_TEST(MatMul, matmul_2d)
LUMEN_CORPUS_CASE_TEST(MatMul, matmul_4d)
LUMEN_CORPUS_CASE_TEST(MatMul, matmul_broadcast)
LUMEN_CORPUS_CASE_TEST(MatMul, matmul_vec)
LUMEN_CORPUS_CASE_TEST(MatMul, bmm)
LUMEN_SEQUENCE_CASE_TEST(MatMul, matmul_vec_left_batched)
LUMEN_SEQUENCE_CASE_TEST(MatMul, matmul_vec_right_batched)
LUMEN_SEQUENCE_CASE_TEST(MatMul, matmul_vec_left_2d)
LUMEN_SEQUENCE_CASE_TEST(MatMul, matmul_broadcast_5d)
LUMEN_SEQUENCE_CASE_TEST(MatMul, matmul_left_2d_right_batched)
LUMEN_SEQUENCE_CASE_TEST(MatMul, matmul_shared_right_deep)
LUMEN_SEQUENCE_CASE_TEST(MatMul, matmul_three_small)
LUMEN_SEQUENCE_CASE_TEST(MatMul, matmul_three_large)
LUMEN_SEQUENCE_CASE_TEST(MatMul, mm)
LUMEN_SEQUENCE_CASE_TEST(MatMul, bmm_b3)
// Rank-0 tensors (what PyTorch returns for x.sum() or a dot product), against PyTorch.
LUMEN_LAYER_CASE_TEST(MatMul, rank0_matmul_dot)
LUMEN_LAYER_CASE_TEST(MatMul, rank0_dot_scales_vector)
LUMEN_LAYER_CASE_TEST(MatMul, mv)
LUMEN_LAYER_CASE_TEST(MatMul, linear_functional_bias)
LUMEN_LAYER_CASE_TEST(MatMul, linear_functional_vector_nobias)
LUMEN_LAYER_CASE_TEST(MatMul, addmm_broadcast_scaled)
LUMEN_LAYER_CASE_TEST(MatMul, addmm_row_input)

Node MatMul(const char* type = "torch.matmul") { return MakeOperator(type, {}, {}, 2); }

TEST(MatMul, InfersShapesAsPyTorch) {
  // Expected shapes from torch.matmul on tensors of these shapes.
  EXPECT_EQ(InferShapes(MatMul(), {{5, 7}, {7, 4}}), (std::vector<Shape>{{5, 4}}));
  EXPECT_EQ(InferShapes(MatMul(), {{7}, {7}}), (std::vector<Shape>{{}}));
  EXPECT_EQ(InferShapes(MatMul(), {{7}, {2, 7, 4}}), (std::vector<Shape>{{2, 4}}));
  EXPECT_EQ(InferShapes(MatMul(), {{2, 3, 5, 7}, {7}}), (std::vector<Shape>{{2, 3, 5}}));
  EXPECT_EQ(InferShapes(MatMul(), {{2, 1, 5, 7}, {3, 7, 4}}), (std::vector<Shape>{{2, 3, 5, 4}}));
  EXPECT_EQ(InferShapes(MatMul(), {{6, 1, 1, 2, 3}, {4, 1, 3, 9}}),
            (std::vector<Shape>{{6, 4, 1, 2, 9}}));
  // Other sizes than any export: a longer sequence, a larger batch.
  EXPECT_EQ(InferShapes(MatMul(), {{8, 4, 300, 16}, {8, 4, 16, 300}}),
            (std::vector<Shape>{{8, 4, 300, 300}}));
}

TEST(MatMul, NamesTheShapesWhenItCannotMultiply) {
  EXPECT_THAT(LayerError(MatMul(), {{5, 7}, {6, 4}}),
              HasSubstr("inner dimensions differ in (5,7) @ (6,4): expected the right operand to "
                        "have 7 rows (the left one's columns), got 6"));
  EXPECT_THAT(LayerError(MatMul(), {{2, 5, 7}, {3, 7, 4}}),
              HasSubstr("batch dimensions (2) and (3) of (2,5,7) @ (3,7,4) cannot be broadcast"));
  EXPECT_THAT(LayerError(MatMul(), {{}, {3}}), HasSubstr("at least one dimension"));
  EXPECT_THAT(LayerError(MatMul("torch.bmm"), {{5, 7}, {7, 4}}),
              HasSubstr("expected two 3-D operands, got (5,7) @ (7,4)"));
  EXPECT_THAT(LayerError(MatMul("torch.bmm"), {{1, 5, 7}, {2, 7, 4}}),
              HasSubstr("torch.bmm does not broadcast"));
  EXPECT_THAT(LayerError(MatMul("torch.mm"), {{2, 5, 7}, {7, 4}}),
              HasSubstr("expected two 2-D operands"));
  EXPECT_THAT(LayerError(MakeOperator("torch.matmul", {}, {}, 3), {{2, 2}, {2, 2}, {2, 2}}),
              HasSubstr("expected 2 input(s), got 3"));
}

TEST(MatMul, DotProductOfTwoVectorsIsAScalar) {
  // torch.matmul(torch.tensor([1., 2., 3.]), torch.tensor([4., -5., 6.])) == 12.
  const Tensor a = Tensor::FromRowMajor({1.0f, 2.0f, 3.0f}, {3});
  const Tensor b = Tensor::FromRowMajor({4.0f, -5.0f, 6.0f}, {3});
  const std::vector<Tensor> result = RunLayer(MatMul(), {a, b});
  ASSERT_EQ(result[0].shape(), Shape{});
  EXPECT_FLOAT_EQ(result[0].ToRowMajor()[0], 12.0f);
}

TEST(MatMul, EmptySharedDimensionGivesZeros) {
  // torch.matmul(torch.ones(2, 0), torch.ones(0, 3)) is a 2x3 matrix of zeros.
  Tensor a(Shape{2, 0});
  Tensor b(Shape{0, 3});
  const std::vector<Tensor> result = RunLayer(MatMul(), {a, b});
  ASSERT_EQ(result[0].shape(), (Shape{2, 3}));
  for (float value : result[0].ToRowMajor()) EXPECT_EQ(value, 0.0f);
}

TEST(MatMul, IsRegisteredUnderEverySpelling) {
  for (const char* type : {"torch.matmul", "Tensor.matmul", "torch.bmm"}) {
    EXPECT_EQ(LayerError(MatMul(type), {{2, 5, 7}, {2, 7, 4}}, {{2, 5, 4}}), "") << type;
  }
  EXPECT_EQ(LayerError(MatMul("torch.mm"), {{5, 7}, {7, 4}}, {{5, 4}}), "");
}

TEST(MatMul, RejectsAnAddmmInputThatDoesNotBroadcast) {
  const Node op = MakeOperator("torch.addmm", {"alpha=1", "beta=1"}, {}, 3);
  EXPECT_THAT(LayerError(op, {{4, 2}, {4, 6}, {6, 3}}),
              HasSubstr("the input (4,2) does not broadcast to the product's shape (4,3)"));
}

TEST(MatMul, RejectsAnMvWithAMatrixOnTheRight) {
  EXPECT_THAT(LayerError(MatMul("torch.mv"), {{5, 4}, {4, 2}}),
              HasSubstr("expected a 2-D and a 1-D operand, got (5,4) @ (4,2)"));
}

TEST(MatMul, RejectsALinearWeightOfOtherFeatures) {
  const Node op = MakeOperator("F.linear", {}, {}, 3);
  EXPECT_THAT(LayerError(op, {{2, 7}, {5, 6}, {5}}), HasSubstr("inner dimensions differ"));
}

}  // namespace
}  // namespace lumen
