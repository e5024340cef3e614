// torch.bitwise_and, _or, _xor, _not, _left_shift, _right_shift against PyTorch on int64 tensors
// with negative values; bitwise_not of a bool tensor is logical negation; float inputs are
// refused, as PyTorch refuses them.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "layer/layer_config.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::MakeOperator;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Bitwise, bitwise_and_integers)
LUMEN_LAYER_CASE_TEST(Bitwise, bitwise_or_integers)
LUMEN_LAYER_CASE_TEST(Bitwise, bitwise_xor_integers)
LUMEN_LAYER_CASE_TEST(Bitwise, bitwise_xor_scalar)
LUMEN_LAYER_CASE_TEST(Bitwise, bitwise_not_integers)
LUMEN_LAYER_CASE_TEST(Bitwise, bitwise_left_shift_integers)
LUMEN_LAYER_CASE_TEST(Bitwise, bitwise_right_shift_integers)

// Runs `type` on `values`, declared as `declared`; returns the output, or the error in `error`.
std::vector<float> RunTyped(const std::string& type, DataType declared,
                            const std::vector<float>& values, std::string* error) {
  const Node op = MakeOperator(type, {});
  const std::vector<Operand> operands = {{"in0", {static_cast<int>(values.size())}, declared}};
  try {
    std::unique_ptr<Layer> layer = LayerRegistry::Create(LayerConfig(op, &operands));
    const Shape shape = {static_cast<Shape::value_type>(values.size())};
    test_support::TestContext context;
    const std::vector<Shape> output_shapes = layer->OutputShapes({shape});
    std::unique_ptr<LayerState> state = layer->Prepare({shape}, output_shapes, context.prepare());
    Tensor input = Tensor::FromRowMajor(values, shape);
    Tensor output(output_shapes[0]);
    layer->Forward({&input}, {&output}, ForwardContext{context.compute(), state.get()});
    return output.ToRowMajor();
  } catch (const Error& caught) {
    *error = caught.what();
  }
  return {};
}

// ~true is -2 on integers, but bitwise_not of a bool tensor is logical negation in PyTorch.
TEST(Bitwise, NotOfABoolTensorIsLogical) {
  std::string error;
  EXPECT_EQ(RunTyped("torch.bitwise_not", DataType::kBool, {1, 0, 1}, &error),
            (std::vector<float>{0, 1, 0}));
  EXPECT_EQ(RunTyped("torch.bitwise_not", DataType::kInt32, {1, 0, -3}, &error),
            (std::vector<float>{-2, -1, 2}));
  EXPECT_EQ(error, "");
}

TEST(Bitwise, RefusesFloatInputs) {
  std::string error;
  RunTyped("torch.bitwise_not", DataType::kFloat32, {1.5f}, &error);
  EXPECT_THAT(error, HasSubstr("torch.bitwise_not 'op': 'bitwise_not' at position 0 of "
                               "'bitwise_not(@0)' is bitwise, and input @0 is f32"));
}

}  // namespace
}  // namespace lumen
