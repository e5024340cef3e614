// torch.gather, torch.scatter_add, torch.where, Tensor.masked_fill and Tensor.slice_copy by hand,
// with PyTorch's results, and their errors (an index out of range is a clear error at run time).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "support/case_runner.hpp"
#include "support/hand_values.hpp"

namespace lumen {
namespace {

using test_support::Arange;
using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RowMajorOutput;
using test_support::RunLayer;
using ::testing::HasSubstr;

// x = arange(6).reshape(2, 3): torch.gather(x, 1, [[2,0],[1,1]]) = [[2,0],[4,4]];
// torch.gather(x, 0, [[1,0,1]]) = [[3,1,5]].
TEST(Gather, GathersAsPyTorch) {
  const Tensor x = Arange({2, 3});
  EXPECT_EQ(
      RowMajorOutput("torch.gather", {"dim=1"}, {x, Tensor::FromRowMajor({2, 0, 1, 1}, {2, 2})}),
      std::vector<float>({2, 0, 4, 4}));
  EXPECT_EQ(
      RowMajorOutput("torch.gather", {"dim=-2"}, {x, Tensor::FromRowMajor({1, 0, 1}, {1, 3})}),
      std::vector<float>({3, 1, 5}));
  EXPECT_THAT(LayerError(MakeOperator("torch.gather", {"dim=0"}, {}, 2), {{2, 3}, {2, 4}}),
              HasSubstr("is larger than the input"));
  try {
    RunLayer(MakeOperator("torch.gather", {"dim=1"}, {}, 2),
             {x, Tensor::FromRowMajor({3, 0}, {1, 2})});
    FAIL();
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("index 3 is out of bounds for dim 1 of extent 3"));
  }
}

// torch.zeros(2, 3).scatter_add(0, [[1,0,1],[1,1,0]], ones(2, 3)) = [[0,1,1],[2,1,1]]:
// repeated positions add up.
TEST(ScatterAdd, AddsAsPyTorch) {
  const Tensor zeros(Shape{2, 3});
  const Tensor index = Tensor::FromRowMajor({1, 0, 1, 1, 1, 0}, {2, 3});
  const Tensor ones = Tensor::FromRowMajor(std::vector<float>(6, 1.0f), {2, 3});
  EXPECT_EQ(RowMajorOutput("torch.scatter_add", {"dim=0"}, {zeros, index, ones}),
            std::vector<float>({0, 1, 1, 2, 1, 1}));
  EXPECT_THAT(
      LayerError(MakeOperator("torch.scatter_add", {"dim=0"}, {}, 3), {{2, 3}, {2, 4}, {2, 3}}),
      HasSubstr("must be no larger than src"));
}

// torch.where(c, x, 10.) with c = [[1],[0]] broadcast over x = arange(4).reshape(2, 2):
// [[0,1],[10,10]]; masked_fill puts the value where the mask holds and keeps x's shape.
TEST(Where, ChoosesAsPyTorch) {
  const Tensor x = Arange({2, 2});
  const Tensor condition = Tensor::FromRowMajor({1, 0}, {2, 1});
  Node where = MakeOperator("torch.where", {"other=10"}, {}, 2);
  where.input_keys["condition"] = "in0";  // pnnx's $condition=... and $input=...
  where.input_keys["input"] = "in1";
  EXPECT_EQ(RunLayer(where, {condition, x})[0].ToRowMajor(), std::vector<float>({0, 1, 10, 10}));
  EXPECT_EQ(RowMajorOutput("torch.where", {}, {condition, x, Tensor::FromRowMajor({7, 8}, {2})}),
            std::vector<float>({0, 1, 7, 8}));
  const Tensor mask = Tensor::FromRowMajor({0, 1}, {2});
  EXPECT_EQ(RowMajorOutput("Tensor.masked_fill", {"value=-1"}, {x, mask}),
            std::vector<float>({0, -1, 2, -1}));
  EXPECT_THAT(LayerError(MakeOperator("Tensor.masked_fill", {"value=1"}, {}, 2), {{2}, {3, 2}}),
              HasSubstr("without enlarging it"));
}

// x = zeros(3, 4); x[1:, -1] = [5, 6] gives [[0,0,0,0],[0,0,0,5],[0,0,0,6]]; x[0] = 7 broadcasts.
TEST(SliceCopy, WritesIntoTheSlice) {
  const Tensor x(Shape{3, 4});
  EXPECT_EQ(RowMajorOutput("Tensor.slice_copy",
                           {"dims=(0,1)", "starts=(1,0)", "ends=(2147483647,0)", "steps=(1,0)",
                            "selects=(2147483647,-1)"},
                           {x, Tensor::FromRowMajor({5, 6}, {2})}),
            std::vector<float>({0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 6}));
  EXPECT_EQ(RowMajorOutput("Tensor.slice_copy", {"dim=0", "start=0", "end=1", "step=1"},
                           {x, Tensor::FromRowMajor({7}, {1})}),
            std::vector<float>({7, 7, 7, 7, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_THAT(LayerError(MakeOperator("Tensor.slice_copy", {"dim=0", "start=0", "end=1"}, {}, 2),
                         {{3, 4}, {2, 4}}),
              HasSubstr("does not broadcast to the slice (1,4)"));
  EXPECT_EQ(InferShapes(MakeOperator("Tensor.slice", {"dims=(0,1)", "starts=(0,0)", "ends=(0,3)",
                                                      "selects=(1,2147483647)", "steps=(0,1)"}),
                        {{3, 4}}),
            std::vector<Shape>({{3}}));
}

}  // namespace
}  // namespace lumen
