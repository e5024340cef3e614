// torch.einsum against PyTorch for the matrix-product equations (transposed operands and results,
// outer products, matrix-vector, broadcast batches) and for the rest, run by the definition
// (several summed letters, traces, one or three operands); the rejection of ellipses and malformed
// equations by name when the model is built.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/case_runner.hpp"
#include "support/sequence_layer_cases.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using ::testing::HasSubstr;

LUMEN_CORPUS_CASE_TEST(Einsum, einsum_bij_bjk)
LUMEN_CORPUS_CASE_TEST(Einsum, einsum_bhqd_bhkd)
LUMEN_SEQUENCE_CASE_TEST(Einsum, einsum_transposed_right)
LUMEN_SEQUENCE_CASE_TEST(Einsum, einsum_transposed_left)
LUMEN_SEQUENCE_CASE_TEST(Einsum, einsum_transposed_result)
LUMEN_SEQUENCE_CASE_TEST(Einsum, einsum_outer)
LUMEN_SEQUENCE_CASE_TEST(Einsum, einsum_matvec)
LUMEN_SEQUENCE_CASE_TEST(Einsum, einsum_batch_letter_inside)
LUMEN_SEQUENCE_CASE_TEST(Einsum, einsum_attention_values)
LUMEN_SEQUENCE_CASE_TEST(Einsum, einsum_broadcast_batch)
LUMEN_SEQUENCE_CASE_TEST(Einsum, einsum_row_letter_batch)
LUMEN_SEQUENCE_CASE_TEST(Einsum, einsum_implicit_output)
LUMEN_SEQUENCE_CASE_TEST(Einsum, einsum_result_transposed_both)
// Rank-0 tensors (what PyTorch returns for x.sum() or a dot product), against PyTorch.
LUMEN_LAYER_CASE_TEST(Einsum, rank0_einsum_dot)
LUMEN_LAYER_CASE_TEST(Einsum, einsum_two_summed_letters)
LUMEN_LAYER_CASE_TEST(Einsum, einsum_trace)
LUMEN_LAYER_CASE_TEST(Einsum, einsum_transpose)
LUMEN_LAYER_CASE_TEST(Einsum, einsum_three_operands)

Node Einsum(const std::string& equation) {
  return MakeOperator("torch.einsum", {"equation=" + equation}, {}, 2);
}

TEST(Einsum, InfersShapesForAnySizes) {
  EXPECT_EQ(InferShapes(Einsum("bhqd,bhkd->bhqk"), {{3, 4, 50, 16}, {3, 4, 70, 16}}),
            (std::vector<Shape>{{3, 4, 50, 70}}));
  EXPECT_EQ(InferShapes(Einsum("b i j , b j k -> b i k"), {{2, 5, 7}, {2, 7, 4}}),
            (std::vector<Shape>{{2, 5, 4}}));
  EXPECT_EQ(InferShapes(Einsum("ij,jk"), {{5, 7}, {7, 4}}), (std::vector<Shape>{{5, 4}}));
  EXPECT_EQ(InferShapes(Einsum("bij,bjk->bik"), {{1, 5, 7}, {6, 7, 4}}),
            (std::vector<Shape>{{6, 5, 4}}));
}

TEST(Einsum, RejectsMalformedEquationsByName) {
  const auto rejected = [](const std::string& equation) {
    return LayerError(Einsum(equation), {{2, 2, 2}, {2, 2, 2}});
  };
  EXPECT_THAT(rejected("...ij,...jk->...ik"), HasSubstr("ellipsis"));
  EXPECT_THAT(rejected("bij,bjk->bixk"), HasSubstr("result letter 'x' is in neither operand"));
  EXPECT_THAT(rejected("bij,bjk->bii"), HasSubstr("letter 'i' repeats in the result"));
  EXPECT_THAT(rejected("b1j,bjk->bk"), HasSubstr("'1' is not a subscript letter"));
  // The message says what is supported.
  EXPECT_THAT(rejected("...ij,...jk->...ik"), HasSubstr("subscript letters and no ellipsis"));
}

TEST(Einsum, InfersShapesOfEquationsRunByTheDefinition) {
  EXPECT_EQ(InferShapes(Einsum("imnj,kmln->ijkl"), {{2, 3, 5, 7}, {11, 3, 17, 5}}),
            (std::vector<Shape>{{2, 7, 11, 17}}));
  EXPECT_EQ(InferShapes(Einsum("bij,bij->b"), {{2, 3, 4}, {2, 3, 4}}), (std::vector<Shape>{{2}}));
  EXPECT_THAT(LayerError(Einsum("ii,ij->j"), {{2, 3}, {2, 2}}),
              HasSubstr("letter 'i' has extent 2 in (2,3) but 3 in (2,3)"));
}

TEST(Einsum, NamesTheShapesWhenTheyDisagree) {
  EXPECT_THAT(LayerError(Einsum("bij,bjk->bik"), {{2, 5, 7}, {2, 6, 4}}),
              HasSubstr("letter 'j' has extent 7 in (2,5,7) but 6 in (2,6,4)"));
  EXPECT_THAT(LayerError(Einsum("bij,bjk->bik"), {{2, 5, 7}, {7, 4}}),
              HasSubstr("expects operand 1 of rank 3 ('bjk'), got (7,4)"));
  EXPECT_THAT(LayerError(Einsum("bij,bjk->bik"), {{2, 5, 7}, {3, 7, 4}}),
              HasSubstr("letter 'b' has extent 2"));
}

}  // namespace
}  // namespace lumen
