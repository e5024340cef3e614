// lumen.GatherND and lumen.ScatterND (ONNX's GatherND and ScatterND) on the examples of the ONNX
// operator documentation, and their errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lumen/error.hpp"
#include "support/case_runner.hpp"
#include "support/hand_values.hpp"

namespace lumen {
namespace {

using test_support::Arange;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RowMajorOutput;
using test_support::RunLayer;
using ::testing::HasSubstr;

TEST(GatherNd, GathersAsTheOnnxExamples) {
  const Tensor square = Arange({2, 2});  // [[0,1],[2,3]]
  // Example 1: tuples of two pick elements; example 2: tuples of one pick rows.
  EXPECT_EQ(
      RowMajorOutput("lumen.GatherND", {}, {square, Tensor::FromRowMajor({0, 0, 1, 1}, {2, 2})}),
      std::vector<float>({0, 3}));
  EXPECT_EQ(RowMajorOutput("lumen.GatherND", {}, {square, Tensor::FromRowMajor({1, 0}, {2, 1})}),
            std::vector<float>({2, 3, 0, 1}));
  // Example 5, batch_dims=1: data[b, indices[b]] for each b.
  const Tensor cube = Arange({2, 2, 2});
  EXPECT_EQ(RowMajorOutput("lumen.GatherND", {"batch_dims=1"},
                           {cube, Tensor::FromRowMajor({1, 0}, {2, 1})}),
            std::vector<float>({2, 3, 4, 5}));
  // A negative index counts from the end.
  EXPECT_EQ(RowMajorOutput("lumen.GatherND", {}, {cube, Tensor::FromRowMajor({-1, 0, -1}, {3})}),
            std::vector<float>({5}));
}

TEST(GatherNd, RefusesBadShapesAndIndices) {
  const Node gather = MakeOperator("lumen.GatherND", {"batch_dims=1"}, {}, 2);
  EXPECT_THAT(LayerError(gather, {{2, 3}, {3, 1}}), HasSubstr("differ in batch dim 0"));
  EXPECT_THAT(LayerError(gather, {{2, 3}, {2, 2}}), HasSubstr("last extent 2 must be from 1"));
  EXPECT_THAT(LayerError(gather, {{2, 3}, {2}}), HasSubstr("must both have a rank above"));
  EXPECT_THAT(LayerError(MakeOperator("lumen.GatherND", {"batch_dims=-1"}, {}, 2), {{2}, {1}}),
              HasSubstr("batch_dims must be at least 0"));
  try {
    RunLayer(MakeOperator("lumen.GatherND", {}, {}, 2),
             {Arange({2, 2}), Tensor::FromRowMajor({2, 0}, {1, 2})});
    FAIL();
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("index 2 is out of bounds for data (2,2)"));
  }
}

TEST(ScatterNd, ScattersAsTheOnnxExamples) {
  // Example 1: elements of a vector.
  const Tensor data = Tensor::FromRowMajor({1, 2, 3, 4, 5, 6, 7, 8}, {8});
  const Tensor indices = Tensor::FromRowMajor({4, 3, 1, 7}, {4, 1});
  const Tensor updates = Tensor::FromRowMajor({9, 10, 11, 12}, {4});
  EXPECT_EQ(RowMajorOutput("lumen.ScatterND", {}, {data, indices, updates}),
            std::vector<float>({1, 11, 3, 10, 9, 6, 7, 12}));
  // Rows of a matrix, a position named twice: sum adds, amax keeps the larger, none the last.
  const Tensor matrix = Arange({3, 2});
  const Tensor rows = Tensor::FromRowMajor({2, 0, -1}, {3, 1});
  const Tensor values = Tensor::FromRowMajor({10, 20, 30, 40, 1, 1}, {3, 2});
  EXPECT_EQ(RowMajorOutput("lumen.ScatterND", {"reduce=sum"}, {matrix, rows, values}),
            std::vector<float>({30, 41, 2, 3, 15, 26}));
  EXPECT_EQ(RowMajorOutput("lumen.ScatterND", {"reduce=amax"}, {matrix, rows, values}),
            std::vector<float>({30, 40, 2, 3, 10, 20}));
  EXPECT_EQ(RowMajorOutput("lumen.ScatterND", {}, {matrix, rows, values}),
            std::vector<float>({30, 40, 2, 3, 1, 1}));
}

TEST(ScatterNd, RefusesBadShapesAndIndices) {
  const Node scatter = MakeOperator("lumen.ScatterND", {}, {}, 3);
  EXPECT_THAT(LayerError(scatter, {{3, 2}, {3, 1}, {3, 3}}),
              HasSubstr("the updates (3,3) must have the shape (3,2)"));
  EXPECT_THAT(LayerError(scatter, {{3, 2}, {3, 3}, {3}}), HasSubstr("must have a last extent"));
  EXPECT_THAT(
      LayerError(MakeOperator("lumen.ScatterND", {"reduce=mean"}, {}, 3), {{1}, {1, 1}, {1}}),
      HasSubstr("reduce must be 'sum', 'prod', 'amax' or 'amin', got 'mean'"));
  try {
    RunLayer(scatter, {Arange({3, 2}), Tensor::FromRowMajor({-4}, {1, 1}),
                       Tensor::FromRowMajor({1, 1}, {1, 2})});
    FAIL();
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("index -4 is out of bounds for data (3,2)"));
  }
}

}  // namespace
}  // namespace lumen
