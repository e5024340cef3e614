// torch.mean / torch.sum against PyTorch over dims (the batch dim and all dims included), with and
// without keepdim; every subset of dims of a batch against a direct loop; shape inference and its
// errors.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/case_runner.hpp"
#include "support/kernel_testing.hpp"

namespace lumen {
namespace {

using test_support::ExpectClose;
using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RandomValues;
using test_support::RunLayer;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Reduction, mean_all_keepdim)
LUMEN_LAYER_CASE_TEST(Reduction, mean_dims_0_2_keepdim)
LUMEN_LAYER_CASE_TEST(Reduction, mean_rows_keepdim)
LUMEN_LAYER_CASE_TEST(Reduction, mean_spatial)
LUMEN_LAYER_CASE_TEST(Reduction, mean_spatial_keepdim)
LUMEN_LAYER_CASE_TEST(Reduction, sum_batch_dim0)
LUMEN_LAYER_CASE_TEST(Reduction, sum_channels)
LUMEN_LAYER_CASE_TEST(Reduction, sum_last)
LUMEN_LAYER_CASE_TEST(Reduction, sum_rows_rank3)
// Rank-0 tensors (what PyTorch returns for x.sum() or a dot product), against PyTorch.
LUMEN_LAYER_CASE_TEST(Reduction, rank0_sum_all)
LUMEN_LAYER_CASE_TEST(Reduction, rank0_mean_all)
LUMEN_LAYER_CASE_TEST(Reduction, rank0_sum_vector_dim0)
LUMEN_LAYER_CASE_TEST(Reduction, rank0_amax_all)
LUMEN_LAYER_CASE_TEST(Reduction, rank0_amin_all_dims_listed)
// torch.norm for every kind of p, std/var with correction, prod and logsumexp, against PyTorch.
LUMEN_LAYER_CASE_TEST(Reduction, norm_p_fro)
LUMEN_LAYER_CASE_TEST(Reduction, norm_p_inf)
LUMEN_LAYER_CASE_TEST(Reduction, norm_p_minus_inf)
LUMEN_LAYER_CASE_TEST(Reduction, norm_p_zero)
LUMEN_LAYER_CASE_TEST(Reduction, norm_p_three)
LUMEN_LAYER_CASE_TEST(Reduction, norm_p_half)
LUMEN_LAYER_CASE_TEST(Reduction, norm_all_default)
LUMEN_LAYER_CASE_TEST(Reduction, std_correction_2)
LUMEN_LAYER_CASE_TEST(Reduction, var_unbiased_last)
LUMEN_LAYER_CASE_TEST(Reduction, std_all)
LUMEN_LAYER_CASE_TEST(Reduction, prod_all)
LUMEN_LAYER_CASE_TEST(Reduction, logsumexp_negative_dim)

// The nuclear norm needs singular values: refused, naming the layer. An empty reduction gives
// what PyTorch gives: a product of 1, a std of NaN, a logsumexp of -inf.
TEST(Reduction, RefusesTheNuclearNormAndReducesNothingAsPyTorch) {
  EXPECT_THAT(LayerError(MakeOperator("torch.norm", {"p=nuc", "dim=(0,1)"}), {{2, 3}}),
              HasSubstr("torch.norm 'op': p='nuc'"));
  EXPECT_THAT(LayerError(MakeOperator("torch.norm", {"p=inf", "dim=1"}), {{2, 0}}),
              HasSubstr("is empty"));
  const Tensor empty(Shape{2, 0});
  EXPECT_EQ(RunLayer(MakeOperator("torch.prod", {"dim=1"}), {empty})[0].ToRowMajor(),
            (std::vector<float>{1.0f, 1.0f}));
  EXPECT_TRUE(
      std::isnan(RunLayer(MakeOperator("torch.std", {"dim=(1)"}), {empty})[0].ToRowMajor()[0]));
  EXPECT_EQ(RunLayer(MakeOperator("torch.logsumexp", {"dim=(1)"}), {empty})[0].ToRowMajor()[0],
            -std::numeric_limits<float>::infinity());
}

// The sum (or mean) of row-major `values` of `shape` over the axes flagged in `reduced`, in
// row-major order of the kept axes, in double.
std::vector<float> ReferenceReduce(const std::vector<float>& values, const Shape& shape,
                                   const std::vector<bool>& reduced, bool mean) {
  Shape kept_shape;
  size_t count = 1;
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    if (reduced[axis]) {
      count *= shape[axis];
    } else {
      kept_shape.push_back(shape[axis]);
    }
  }
  std::vector<double> sums(ShapeElementCount(kept_shape), 0.0);
  std::vector<size_t> index(shape.size(), 0);
  for (float value : values) {
    size_t target = 0;
    for (size_t axis = 0; axis < shape.size(); ++axis) {
      if (!reduced[axis]) target = target * shape[axis] + index[axis];
    }
    sums[target] += value;
    for (size_t axis = shape.size(); axis-- > 0;) {  // next row-major index
      if (++index[axis] < shape[axis]) break;
      index[axis] = 0;
    }
  }
  std::vector<float> result;
  for (double sum : sums) result.push_back(static_cast<float>(mean ? sum / count : sum));
  return result;
}

// Every subset of the dims of a batch of 2 (the batch dim included), sum and mean, keepdim both
// ways, on 1 and 3 threads.
TEST(Reduction, ReducesEverySubsetOfDims) {
  const Shape shape{2, 3, 4, 5};
  std::mt19937 generator(61);
  const std::vector<float> values = RandomValues(ShapeElementCount(shape), &generator);
  const Tensor input = Tensor::FromRowMajor(values, shape);
  for (unsigned subset = 1; subset < 16; ++subset) {
    std::vector<bool> reduced(4);
    std::string dims = "(";
    Shape kept, kept_dims;
    for (size_t axis = 0; axis < 4; ++axis) {
      reduced[axis] = (subset >> axis & 1) != 0;
      if (reduced[axis]) dims += std::to_string(axis) + ",";
      kept.push_back(reduced[axis] ? 1 : shape[axis]);
      if (!reduced[axis]) kept_dims.push_back(shape[axis]);
    }
    dims.back() = ')';
    for (const char* type : {"torch.sum", "torch.mean"}) {
      const bool mean = std::string(type) == "torch.mean";
      const std::vector<float> expected = ReferenceReduce(values, shape, reduced, mean);
      for (bool keepdim : {false, true}) {
        const Node op = MakeOperator(
            type, {"dim=" + dims, std::string("keepdim=") + (keepdim ? "True" : "False")});
        for (int threads : {1, 3}) {
          const std::vector<Tensor> outputs = RunLayer(op, {input}, threads);
          EXPECT_EQ(outputs[0].shape(), keepdim ? kept : kept_dims) << type << " dim=" << dims;
          ExpectClose(outputs[0].ToRowMajor(), expected, 1e-5f, 1e-5f,
                      std::string(type) + " dim=" + dims + (keepdim ? " keepdim" : ""));
        }
      }
    }
  }
}

// Large enough to be split over threads, with long runs both along and across memory order.
TEST(Reduction, ReducesLargeTensorsOnThreads) {
  const Shape shape{3, 40, 33, 35};
  std::mt19937 generator(62);
  const std::vector<float> values = RandomValues(ShapeElementCount(shape), &generator);
  const Tensor input = Tensor::FromRowMajor(values, shape);
  for (const std::vector<bool>& reduced : std::vector<std::vector<bool>>{
           {false, true, false, false}, {false, false, true, true}, {true, false, false, true}}) {
    std::string dims = "(";
    for (size_t axis = 0; axis < 4; ++axis) {
      if (reduced[axis]) dims += std::to_string(axis) + ",";
    }
    dims.back() = ')';
    const std::vector<Tensor> outputs =
        RunLayer(MakeOperator("torch.mean", {"dim=" + dims, "keepdim=False"}), {input}, 3);
    ExpectClose(outputs[0].ToRowMajor(), ReferenceReduce(values, shape, reduced, true), 1e-6f,
                1e-5f, "mean dim=" + dims);
  }
}

// Without dim and keepdim the result is a scalar, of shape ().
TEST(Reduction, ReducesEverythingToAScalar) {
  const std::vector<Tensor> outputs =
      RunLayer(MakeOperator("torch.sum", {"dim=None", "keepdim=False"}),
               {Tensor::FromRowMajor({1, 2, 3, 4, 5, 6}, {2, 3})});
  ASSERT_EQ(outputs[0].shape(), Shape{});
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>{21.0f});
}

TEST(Reduction, InfersTheShapeForAnyInput) {
  EXPECT_EQ(InferShapes(MakeOperator("torch.mean", {"dim=(2,3)", "keepdim=True"}), {{8, 4, 5, 6}}),
            std::vector<Shape>({{8, 4, 1, 1}}));
  EXPECT_EQ(InferShapes(MakeOperator("torch.sum", {"dim=0", "keepdim=False"}), {{8, 4, 5}}),
            std::vector<Shape>({{4, 5}}));
  EXPECT_EQ(InferShapes(MakeOperator("Tensor.sum", {"dim=None", "keepdim=False"}), {{8, 4, 5}}),
            std::vector<Shape>({Shape{}}));
  EXPECT_EQ(InferShapes(MakeOperator("torch.mean", {"keepdim=True"}), {{8, 4, 5}}),
            std::vector<Shape>({{1, 1, 1}}));
}

TEST(Reduction, RejectsDimsOutOfRangeOrRepeated) {
  EXPECT_THAT(LayerError(MakeOperator("torch.sum", {"dim=(1,-4)"}), {{2, 3, 4}}),
              HasSubstr("dim -4 is out of range for a tensor of rank 3"));
  EXPECT_THAT(LayerError(MakeOperator("torch.sum", {"dim=(1,-3)"}), {{2, 3, 4, 5}}),
              HasSubstr("dim -3 is listed twice"));
}

}  // namespace
}  // namespace lumen
