// torch.index_select against PyTorch (repeated and reordered indices, the last dim, indices as a
// constant or as a graph input, a rank-0 index), and its errors: an index outside the extent is
// a clear error at run time, never an empty or clamped result.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RunLayer;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(IndexSelect, index_select_rows_repeated)
LUMEN_LAYER_CASE_TEST(IndexSelect, index_select_last_dim)
LUMEN_LAYER_CASE_TEST(IndexSelect, index_select_channels_input)
LUMEN_LAYER_CASE_TEST(IndexSelect, index_select_rows_of_matrix)
LUMEN_LAYER_CASE_TEST(IndexSelect, index_select_rank0_index)

Node IndexSelect(int dim) {
  return MakeOperator("torch.index_select", {Concat("dim=", dim)}, {}, 2);
}

TEST(IndexSelect, InfersShapesAsPyTorch) {
  EXPECT_EQ(InferShapes(IndexSelect(1), {{2, 6, 3}, {4}}), (std::vector<Shape>{{2, 4, 3}}));
  EXPECT_EQ(InferShapes(IndexSelect(-1), {{2, 6, 3}, {}}), (std::vector<Shape>{{2, 6, 1}}));
  // A rank-0 input is one element along dim 0 (or -1); one index gives a rank-0 result.
  EXPECT_EQ(InferShapes(IndexSelect(0), {{}, {1}}), (std::vector<Shape>{Shape{}}));
  EXPECT_THAT(LayerError(IndexSelect(0), {{5, 4}, {2, 2}}),
              HasSubstr("the index must be a vector or a rank-0 tensor, got shape (2,2)"));
  EXPECT_THAT(LayerError(IndexSelect(2), {{5, 4}, {2}}),
              HasSubstr("dim 2 is out of range for a tensor of rank 2"));
}

// x = arange(12).reshape(3, 4): x.index_select(0, [2, 0]) is rows 2 and 0.
TEST(IndexSelect, SelectsByHand) {
  std::vector<float> values(12);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  const Tensor input = Tensor::FromRowMajor(values, {3, 4});
  const Tensor rows = Tensor::FromRowMajor({2, 0}, {2});
  EXPECT_EQ(RunLayer(IndexSelect(0), {input, rows})[0].ToRowMajor(),
            std::vector<float>({8, 9, 10, 11, 0, 1, 2, 3}));
  const Tensor columns = Tensor::FromRowMajor({3, 3, 1}, {3});
  EXPECT_EQ(RunLayer(IndexSelect(1), {input, columns}, 2)[0].ToRowMajor(),
            std::vector<float>({3, 3, 1, 7, 7, 5, 11, 11, 9}));
}

// PyTorch raises IndexError for 4 on an extent of 4, for -1 (index_select counts no negative
// index from the end) and for a position that is not a whole number.
TEST(IndexSelect, RejectsAnIndexOutOfRangeAtRunTime) {
  const Tensor input(Shape{2, 4, 3});
  for (float bad : {4.0f, 100.0f, -1.0f, 1.5f}) {
    try {
      RunLayer(IndexSelect(1), {input, Tensor::FromRowMajor({0, bad}, {2})});
      FAIL() << bad;
    } catch (const Error& error) {
      EXPECT_THAT(error.what(), HasSubstr("torch.index_select 'op'"));
      EXPECT_THAT(error.what(), HasSubstr(Concat("index ", bad,
                                                 " is out of range for dim 1 of "
                                                 "extent 4")));
    }
  }
}

}  // namespace
}  // namespace lumen
