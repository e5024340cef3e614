// nn.Softmax / F.softmax against PyTorch on several dims, the batch dim included; every dim of a
// batch against a direct loop; shape inference and its errors.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "support/case_runner.hpp"
#include "support/kernel_testing.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

using test_support::ExpectClose;
using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RandomValues;
using test_support::RunLayer;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Softmax, softmax_dim0)
LUMEN_LAYER_CASE_TEST(Softmax, softmax_dim0_rank4)
LUMEN_LAYER_CASE_TEST(Softmax, softmax_dim1)
LUMEN_LAYER_CASE_TEST(Softmax, softmax_dim2)
LUMEN_LAYER_CASE_TEST(Softmax, softmax_last)
LUMEN_LAYER_CASE_TEST(Softmax, softmax_rank3)
// Rank-0 tensors (what PyTorch returns for x.sum() or a dot product), against PyTorch.
LUMEN_LAYER_CASE_TEST(Softmax, rank0_softmax)

// Softmax along `axis` of row-major `values` of `shape`, in double.
std::vector<float> ReferenceSoftmax(const std::vector<float>& values, const Shape& shape,
                                    size_t axis) {
  size_t inner = 1;
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  const size_t extent = shape[axis];
  const size_t outer = values.size() / (extent * inner);
  std::vector<float> result(values.size());
  for (size_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < inner; ++i) {
      const size_t base = o * extent * inner + i;
      double sum = 0.0;
      for (size_t e = 0; e < extent; ++e) sum += std::exp(double{values[base + e * inner]});
      for (size_t e = 0; e < extent; ++e) {
        result[base + e * inner] =
            static_cast<float>(std::exp(double{values[base + e * inner]}) / sum);
      }
    }
  }
  return result;
}

// The batch is an ordinary dimension: softmax over every dim of a batch of 3, positive and
// negative spellings, on 1 and 2 threads.
TEST(Softmax, NormalisesAlongEveryDimOfABatch) {
  std::mt19937 generator(51);
  for (const Shape& shape : std::vector<Shape>{{3, 4, 5, 6}, {3, 70, 90}, {5, 2}}) {
    const std::vector<float> values =
        RandomValues(ShapeElementCount(shape), &generator, -4.0f, 4.0f);
    const int rank = static_cast<int>(shape.size());
    for (int dim = -rank; dim < rank; ++dim) {
      const size_t axis = static_cast<size_t>(dim < 0 ? dim + rank : dim);
      const std::vector<float> expected = ReferenceSoftmax(values, shape, axis);
      for (int threads : {1, 2}) {
        const std::vector<Tensor> outputs =
            RunLayer(MakeOperator("nn.Softmax", {"dim=" + std::to_string(dim)}),
                     {Tensor::FromRowMajor(values, shape)}, threads);
        ExpectClose(outputs[0].ToRowMajor(), expected, 1e-6f, 1e-5f,
                    ShapeToString(shape) + " dim " + std::to_string(dim));
      }
    }
  }
}

TEST(Softmax, InfersTheInputShape) {
  EXPECT_EQ(InferShapes(MakeOperator("nn.Softmax", {"dim=0"}), {{7, 3}}),
            std::vector<Shape>({{7, 3}}));
  EXPECT_EQ(InferShapes(MakeOperator("F.softmax", {"dim=-1"}), {{2, 8, 100, 100}}),
            std::vector<Shape>({{2, 8, 100, 100}}));
}

TEST(Softmax, RejectsADimOutOfRange) {
  EXPECT_THAT(LayerError(MakeOperator("nn.Softmax", {"dim=3"}), {{2, 5, 4}}),
              HasSubstr("dim 3 is out of range for a tensor of rank 3"));
  EXPECT_THAT(LayerError(MakeOperator("nn.Softmax", {"dim=-4"}), {{2, 5, 4}}),
              HasSubstr("dim -4 is out of range for a tensor of rank 3"));
}

}  // namespace
}  // namespace lumen
