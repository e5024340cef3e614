// torch.max / torch.min over a dim against PyTorch: values and indices (as floats), keepdim,
// negative dims, the batch dim, ties (first index), NaN (wins, first occurrence); the whole
// tensor without a dim (by hand: a scalar output has no case format); and their errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
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

LUMEN_LAYER_CASE_TEST(Extremum, max_last_indices_batch2)
LUMEN_LAYER_CASE_TEST(Extremum, min_rows_keepdim_indices)
LUMEN_LAYER_CASE_TEST(Extremum, max_batch_dim)
LUMEN_LAYER_CASE_TEST(Extremum, min_rank2_dim1)
LUMEN_LAYER_CASE_TEST(Extremum, max_ties_first_index)
LUMEN_LAYER_CASE_TEST(Extremum, min_ties_first_index)
LUMEN_LAYER_CASE_TEST(Extremum, max_nan_wins)
// Rank-0 tensors (what PyTorch returns for x.sum() or a dot product), against PyTorch.
LUMEN_LAYER_CASE_TEST(Extremum, rank0_max_all)
LUMEN_LAYER_CASE_TEST(Extremum, rank0_max_vector_dim0)

TEST(Extremum, RegistersBothSpellings) {
  EXPECT_TRUE(LayerRegistry::Has("torch.max"));
  EXPECT_TRUE(LayerRegistry::Has("torch.min"));
}

// torch.max(torch.tensor([[1., 5., 5.], [-2., -7., -3.]]), 1) is values [5, -2], indices [1, 0];
// torch.min over dim 0 with keepdim is [[-2, -7, -3]] at [[1, 1, 1]].
TEST(Extremum, ReducesByHand) {
  const Tensor input = Tensor::FromRowMajor({1, 5, 5, -2, -7, -3}, {2, 3});
  const std::vector<Tensor> max =
      RunLayer(MakeOperator("torch.max", {"dim=1", "keepdim=False"}, {}, 1, 2), {input});
  EXPECT_EQ(max[0].ToRowMajor(), std::vector<float>({5, -2}));
  EXPECT_EQ(max[1].ToRowMajor(), std::vector<float>({1, 0}));
  const std::vector<Tensor> min =
      RunLayer(MakeOperator("torch.min", {"dim=-2", "keepdim=True"}, {}, 1, 2), {input});
  EXPECT_EQ(min[0].shape(), Shape({1, 3}));
  EXPECT_EQ(min[0].ToRowMajor(), std::vector<float>({-2, -7, -3}));
  EXPECT_EQ(min[1].ToRowMajor(), std::vector<float>({1, 1, 1}));
  // Without a dim: torch.max(input) is tensor(5.), torch.min(input) is tensor(-7.).
  EXPECT_EQ(InferShapes(MakeOperator("torch.min", {}), {{2, 3}}), std::vector<Shape>({Shape{}}));
  EXPECT_EQ(RunLayer(MakeOperator("torch.max", {}), {input})[0].ToRowMajor(),
            std::vector<float>({5}));
  EXPECT_EQ(RunLayer(MakeOperator("torch.min", {}), {input})[0].ToRowMajor(),
            std::vector<float>({-7}));
}

// Lines longer than a thread's share, on two threads, give the same as one.
TEST(Extremum, ThreadsGiveTheSameResult) {
  std::vector<float> values(4 * 50 * 300);
  for (size_t i = 0; i < values.size(); ++i) values[i] = std::sin(static_cast<float>(i) * 0.37f);
  const Tensor input = Tensor::FromRowMajor(values, {4, 50, 300});
  for (const char* dim : {"dim=0", "dim=1", "dim=2"}) {
    const Node op = MakeOperator("torch.max", {dim, "keepdim=False"}, {}, 1, 2);
    const std::vector<Tensor> one = RunLayer(op, {input}, 1);
    const std::vector<Tensor> two = RunLayer(op, {input}, 2);
    EXPECT_EQ(one[0].ToRowMajor(), two[0].ToRowMajor()) << dim;
    EXPECT_EQ(one[1].ToRowMajor(), two[1].ToRowMajor()) << dim;
  }
}

TEST(Extremum, RejectsBadDimsAndEmptyInputs) {
  EXPECT_THAT(LayerError(MakeOperator("torch.max", {"dim=2", "keepdim=False"}), {{2, 3}}),
              HasSubstr("dim 2 is out of range for a tensor of rank 2"));
  EXPECT_THAT(LayerError(MakeOperator("torch.max", {"dim=1", "keepdim=False"}), {{2, 0}}),
              HasSubstr("is empty: it has no extremum"));
  EXPECT_THAT(LayerError(MakeOperator("torch.min", {}), {{0, 3}}),
              HasSubstr("is empty: it has no extremum"));
}

}  // namespace
}  // namespace lumen
