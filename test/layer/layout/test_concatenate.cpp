// torch.cat of 2..4 inputs on any dim against PyTorch, and on dims and sizes the corpus lacks.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RunLayer;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Concatenate, cat_channels_4)
LUMEN_LAYER_CASE_TEST(Concatenate, cat_last)
LUMEN_LAYER_CASE_TEST(Concatenate, cat_rank3)
LUMEN_LAYER_CASE_TEST(Concatenate, cat_rank5_last)
LUMEN_LAYER_CASE_TEST(Concatenate, cat_rows)

// 0, 1, 2, ... in row-major order, offset by `first`.
Tensor Iota(const Shape& shape, float first) {
  std::vector<float> values(ShapeElementCount(shape));
  std::iota(values.begin(), values.end(), first);
  return Tensor::FromRowMajor(values, shape);
}

// The reference: PyTorch's cat written out over row-major (outer, extent, inner) blocks.
std::vector<float> ReferenceCat(const std::vector<Tensor>& inputs, size_t axis) {
  const Shape& shape = inputs[0].shape();
  size_t outer = 1;
  for (size_t d = 0; d < axis; ++d) outer *= shape[d];
  std::vector<float> result;
  for (size_t o = 0; o < outer; ++o) {
    for (const Tensor& input : inputs) {
      const std::vector<float> values = input.ToRowMajor();
      const size_t block = values.size() / outer;
      result.insert(result.end(), values.begin() + o * block, values.begin() + (o + 1) * block);
    }
  }
  return result;
}

void ExpectCat(int dim, const std::vector<Shape>& shapes, const Shape& expected, int threads = 1) {
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < shapes.size(); ++i) inputs.push_back(Iota(shapes[i], 1000.0f * i));
  const Node op = MakeOperator("torch.cat", {"dim=" + std::to_string(dim)}, {},
                               static_cast<int>(shapes.size()));
  const std::vector<Tensor> outputs = RunLayer(op, inputs, threads);
  ASSERT_EQ(outputs[0].shape(), expected);
  const size_t axis = dim < 0 ? dim + expected.size() : dim;
  EXPECT_EQ(outputs[0].ToRowMajor(), ReferenceCat(inputs, axis)) << "dim " << dim;
}

TEST(Concatenate, JoinsAlongTheBatch) {
  ExpectCat(0, {{2, 3, 4, 5}, {1, 3, 4, 5}}, {3, 3, 4, 5});
  ExpectCat(-4, {{1, 3, 4, 5}, {2, 3, 4, 5}, {1, 3, 4, 5}}, {4, 3, 4, 5});
}

TEST(Concatenate, JoinsEveryDimensionAtOtherSizes) {
  ExpectCat(1, {{2, 3, 7, 6}, {2, 5, 7, 6}}, {2, 8, 7, 6});
  ExpectCat(2, {{2, 3, 7, 6}, {2, 3, 1, 6}}, {2, 3, 8, 6});
  ExpectCat(-1, {{2, 3, 7, 6}, {2, 3, 7, 2}}, {2, 3, 7, 8});
  ExpectCat(0, {{5}, {3}}, {8});
  ExpectCat(1, {{4, 2}, {4, 0}, {4, 3}}, {4, 5});  // an empty input adds nothing
}

TEST(Concatenate, SharesALargeJoinBetweenThreads) {
  ExpectCat(0, {{1, 64, 40, 40}, {1, 64, 40, 40}}, {2, 64, 40, 40}, 3);
  ExpectCat(1, {{2, 32, 33, 40}, {2, 7, 33, 40}, {2, 1, 33, 40}}, {2, 40, 33, 40}, 2);
}

TEST(Concatenate, InfersTheJoinedShapeForAnyInputSize) {
  const Node op = MakeOperator("torch.cat", {"dim=1"}, {}, 2);
  EXPECT_EQ(InferShapes(op, {{4, 32, 40, 40}, {4, 32, 40, 40}}),
            std::vector<Shape>({{4, 64, 40, 40}}));
}

TEST(Concatenate, RejectsInputsThatDifferOutsideTheDimension) {
  EXPECT_THAT(LayerError(MakeOperator("torch.cat", {"dim=1"}, {}, 2), {{1, 2, 3}, {1, 2, 4}}),
              HasSubstr("input 1 has shape (1,2,4), expected (1,*,3)"));
}

TEST(Concatenate, RejectsInputsOfAnotherRank) {
  // Hostile: a lower-rank input with dim past its rank once overflowed the heap.
  EXPECT_THAT(LayerError(MakeOperator("torch.cat", {"dim=2"}, {}, 2), {{1, 2, 3}, {1, 2}}),
              HasSubstr("input 1 has shape (1,2), expected (1,2,*) (input 0 is (1,2,3); only dim "
                        "2 may differ)"));
  EXPECT_THAT(LayerError(MakeOperator("torch.cat", {"dim=1"}, {}, 2), {{1, 2}, {1, 2, 3}}),
              HasSubstr("input 1 has shape (1,2,3), expected (1,*)"));
  EXPECT_THAT(LayerError(MakeOperator("torch.cat", {"dim=3"}, {}, 2), {{1, 2, 3}, {1, 2, 3}}),
              HasSubstr("dim 3 is out of range for a tensor of rank 3"));
}

TEST(Concatenate, RejectsAJoinedExtentThatOverflows) {
  EXPECT_THAT(
      LayerError(MakeOperator("torch.cat", {"dim=0"}, {}, 2), {{4000000000u}, {4000000000u}}),
      HasSubstr("above 2^32 - 1"));
}

}  // namespace
}  // namespace lumen
