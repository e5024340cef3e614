// Tensors of one value (torch.full/zeros/ones, Tensor.new_*, *_like, Tensor.fill): the value from
// a parameter, from an operand, or implied; integer dtypes rounding it; shapes and their errors.
// pnnx's own tests of these ops fold them into constants (the golden cases in tmp/pnnx_ops run
// those); these layers run the forms it leaves in a graph.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RunLayer;
using ::testing::HasSubstr;

TEST(Full, FillsAGivenSize) {
  const std::vector<Tensor> outputs = RunLayer(
      MakeOperator("torch.full", {"size=(2,3)", "fill_value=2.5", "dtype=None"}, {}, 0), {});
  EXPECT_EQ(outputs[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>(6, 2.5f));
  EXPECT_EQ(RunLayer(MakeOperator("torch.ones", {"size=(4)"}, {}, 0), {})[0].ToRowMajor(),
            std::vector<float>(4, 1.0f));
  // Tensor.new_* take the tensor they are called on, and ignore its shape and values.
  const Tensor self = Tensor::FromRowMajor({7, 8}, {2});
  const std::vector<Tensor> zeros =
      RunLayer(MakeOperator("Tensor.new_zeros", {"size=(1,2,1)"}), {self});
  EXPECT_EQ(zeros[0].shape(), (Shape{1, 2, 1}));
  EXPECT_EQ(zeros[0].ToRowMajor(), std::vector<float>(2, 0.0f));
}

TEST(Full, FillsTheInputsShapeRoundingForIntegerDtypes) {
  const Tensor input = Tensor::FromRowMajor({1, 2, 3, 4, 5, 6}, {3, 2});
  EXPECT_EQ(
      RunLayer(MakeOperator("torch.full_like", {"fill_value=-2.7", "dtype=torch.long"}), {input})[0]
          .ToRowMajor(),
      std::vector<float>(6, -2.0f));
  EXPECT_EQ(RunLayer(MakeOperator("torch.ones_like", {}), {input})[0].ToRowMajor(),
            std::vector<float>(6, 1.0f));
  EXPECT_EQ(RunLayer(MakeOperator("Tensor.fill", {"value=0.22"}), {input})[0].ToRowMajor(),
            std::vector<float>(6, 0.22f));
}

// Tensor.fill's value may be an operand (a one-element tensor), read at run time.
TEST(Full, ReadsTheValueFromAnOperand) {
  Node op = MakeOperator("Tensor.fill", {}, {}, 2);
  op.input_keys = {{"input", "in0"}, {"value", "in1"}};
  const Tensor input(Shape{2, 2});
  const Tensor value = Tensor::FromRowMajor({3.5f}, {});
  EXPECT_EQ(RunLayer(op, {input, value})[0].ToRowMajor(), std::vector<float>(4, 3.5f));
  EXPECT_THAT(LayerError(op, {{2, 2}, {2}}), HasSubstr("must hold one element, got shape (2)"));
}

TEST(Full, RefusesAMissingOrNegativeSize) {
  EXPECT_THAT(LayerError(MakeOperator("torch.zeros", {}, {}, 0), {}), HasSubstr("size must be"));
  EXPECT_THAT(LayerError(MakeOperator("torch.zeros", {"size=(2,-1)"}, {}, 0), {}),
              HasSubstr("negative extent -1"));
  EXPECT_THAT(LayerError(MakeOperator("torch.full_like", {}), {{2}}),
              HasSubstr("torch.full_like 'op': no fill_value"));
  EXPECT_EQ(InferShapes(MakeOperator("torch.empty_like", {}), {{3, 1}}),
            (std::vector<Shape>{{3, 1}}));
}

}  // namespace
}  // namespace lumen
