// nn.Embedding and F.embedding against PyTorch (indices of rank 0 to 3, the table as a weight or
// as an operand), and their errors: an index outside the table is a clear error at run time.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "lumen/error.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RunLayer;
using test_support::Weight;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Embedding, embedding_tokens)
LUMEN_LAYER_CASE_TEST(Embedding, embedding_rank3_indices)
LUMEN_LAYER_CASE_TEST(Embedding, embedding_vector)
LUMEN_LAYER_CASE_TEST(Embedding, embedding_scalar_index)
LUMEN_LAYER_CASE_TEST(Embedding, embedding_functional)

// A table of 3 rows of 2: row r is (10 r, 10 r + 1).
Node Table() {
  return MakeOperator("nn.Embedding", {"num_embeddings=3", "embedding_dim=2"},
                      {{"weight", Weight{{3, 2}, {0, 1, 10, 11, 20, 21}}}});
}

TEST(Embedding, LooksUpRowsByHand) {
  const Tensor indices = Tensor::FromRowMajor({2, 0, 2, 1}, {2, 2});
  const Tensor result = RunLayer(Table(), {indices})[0];
  EXPECT_EQ(result.shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(result.ToRowMajor(), std::vector<float>({20, 21, 0, 1, 20, 21, 10, 11}));
  EXPECT_EQ(InferShapes(Table(), {{}}), (std::vector<Shape>{{2}}));
}

TEST(Embedding, RejectsAnIndexOutsideTheTable) {
  for (float bad : {3.0f, 100.0f, -1.0f, 0.5f}) {
    try {
      RunLayer(Table(), {Tensor::FromRowMajor({1, bad}, {2})});
      FAIL() << bad;
    } catch (const Error& error) {
      EXPECT_THAT(error.what(), HasSubstr("nn.Embedding 'op'"));
      EXPECT_THAT(error.what(),
                  HasSubstr(Concat("index ", bad, " is out of range for a table of 3 rows")));
    }
  }
  const Node functional = MakeOperator("F.embedding", {}, {}, 2);
  EXPECT_THAT(LayerError(functional, {{4}, {3}}),
              HasSubstr("the weight must be 2-D (num_embeddings, embedding_dim), got shape (3)"));
}

}  // namespace
}  // namespace lumen
