// pnnx.Expression against PyTorch: every function pnnx can emit, constants, broadcasting up to
// rank 5.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "layer/layer_config.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
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

// The row-major index into a tensor of `shape` that broadcasting reads for the element at
// row-major index `index` of a result of shape `result` (PyTorch's rule, written out plainly).
size_t BroadcastSource(size_t index, const Shape& result, const Shape& shape) {
  size_t source = 0;
  size_t stride = 1;
  for (size_t i = 0; i < result.size(); ++i) {
    const size_t dim = result.size() - 1 - i;
    const size_t position = index % result[dim];
    index /= result[dim];
    if (i < shape.size()) {
      const size_t own = shape.size() - 1 - i;
      if (shape[own] != 1) source += position * stride;
      stride *= shape[own];
    }
  }
  return source;
}

// Runs `expr` on random inputs of `shapes` and compares with `reference`, a function of the
// inputs' values at one output element, evaluated element by element.
void ExpectExpression(const std::string& expr, const std::vector<Shape>& shapes,
                      const Shape& expected_shape,
                      const std::function<float(const std::vector<float>&)>& reference,
                      int threads = 1) {
  std::mt19937 generator(7);
  std::vector<Tensor> inputs;
  std::vector<std::vector<float>> values;
  for (const Shape& shape : shapes) {
    values.push_back(RandomValues(ShapeElementCount(shape), &generator, 0.5f, 2.0f));
    inputs.push_back(Tensor::FromRowMajor(values.back(), shape));
  }
  const Node op =
      MakeOperator("pnnx.Expression", {"expr=" + expr}, {}, static_cast<int>(shapes.size()));
  const std::vector<Tensor> outputs = RunLayer(op, inputs, threads);
  ASSERT_EQ(outputs.size(), 1u);
  ASSERT_EQ(outputs[0].shape(), expected_shape) << expr;
  std::vector<float> wanted(ShapeElementCount(expected_shape));
  std::vector<float> arguments(shapes.size());
  for (size_t i = 0; i < wanted.size(); ++i) {
    for (size_t k = 0; k < shapes.size(); ++k) {
      // An input the expression does not read may not broadcast to the output (CopiesABareInput):
      // its index would run past its values, so it gets NaN, which the reference never reads.
      const size_t source = BroadcastSource(i, expected_shape, shapes[k]);
      arguments[k] = source < values[k].size() ? values[k][source] : NAN;
    }
    wanted[i] = reference(arguments);
  }
  ExpectClose(outputs[0].ToRowMajor(), wanted, 1e-6f, 1e-6f, expr);
}

LUMEN_LAYER_CASE_TEST(Expression, expr_abs)
LUMEN_LAYER_CASE_TEST(Expression, expr_acos)
LUMEN_LAYER_CASE_TEST(Expression, expr_acosh)
LUMEN_LAYER_CASE_TEST(Expression, expr_add)
LUMEN_LAYER_CASE_TEST(Expression, expr_asin)
LUMEN_LAYER_CASE_TEST(Expression, expr_asinh)
LUMEN_LAYER_CASE_TEST(Expression, expr_atan)
LUMEN_LAYER_CASE_TEST(Expression, expr_atanh)
LUMEN_LAYER_CASE_TEST(Expression, expr_attribute_batch1)
LUMEN_LAYER_CASE_TEST(Expression, expr_attribute_no_batch)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_add)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_atan2)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_div)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_floor_divide)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_fmod)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_logaddexp)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_max)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_maximum)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_min)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_minimum)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_mul)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_pow)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_remainder)
LUMEN_LAYER_CASE_TEST(Expression, expr_binary_sub)
LUMEN_LAYER_CASE_TEST(Expression, expr_broadcast_batch)
LUMEN_LAYER_CASE_TEST(Expression, expr_broadcast_channel)
LUMEN_LAYER_CASE_TEST(Expression, expr_broadcast_column)
LUMEN_LAYER_CASE_TEST(Expression, expr_broadcast_plane)
LUMEN_LAYER_CASE_TEST(Expression, expr_broadcast_row)
LUMEN_LAYER_CASE_TEST(Expression, expr_ceil)
LUMEN_LAYER_CASE_TEST(Expression, expr_constants)
LUMEN_LAYER_CASE_TEST(Expression, expr_cos)
LUMEN_LAYER_CASE_TEST(Expression, expr_cosh)
LUMEN_LAYER_CASE_TEST(Expression, expr_erf)
LUMEN_LAYER_CASE_TEST(Expression, expr_exp)
LUMEN_LAYER_CASE_TEST(Expression, expr_expm1)
LUMEN_LAYER_CASE_TEST(Expression, expr_exponent_constants)
LUMEN_LAYER_CASE_TEST(Expression, expr_floor)
LUMEN_LAYER_CASE_TEST(Expression, expr_log)
LUMEN_LAYER_CASE_TEST(Expression, expr_log10)
LUMEN_LAYER_CASE_TEST(Expression, expr_log1p)
LUMEN_LAYER_CASE_TEST(Expression, expr_neg)
LUMEN_LAYER_CASE_TEST(Expression, expr_nested)
LUMEN_LAYER_CASE_TEST(Expression, expr_rank5)
LUMEN_LAYER_CASE_TEST(Expression, expr_reciprocal)
LUMEN_LAYER_CASE_TEST(Expression, expr_reuse)
LUMEN_LAYER_CASE_TEST(Expression, expr_round_halves)
LUMEN_LAYER_CASE_TEST(Expression, expr_rsqrt)
LUMEN_LAYER_CASE_TEST(Expression, expr_sign)
LUMEN_LAYER_CASE_TEST(Expression, expr_sin)
LUMEN_LAYER_CASE_TEST(Expression, expr_sinh)
LUMEN_LAYER_CASE_TEST(Expression, expr_sqrt)
LUMEN_LAYER_CASE_TEST(Expression, expr_square)
LUMEN_LAYER_CASE_TEST(Expression, expr_sub_div)
LUMEN_LAYER_CASE_TEST(Expression, expr_tan)
LUMEN_LAYER_CASE_TEST(Expression, expr_tanh)
LUMEN_LAYER_CASE_TEST(Expression, expr_trunc)
LUMEN_LAYER_CASE_TEST(Expression, expr_yolo_wh)
LUMEN_LAYER_CASE_TEST(Expression, expr_yolo_xy)
// Rank-0 tensors (what PyTorch returns for x.sum() or a dot product), against PyTorch.
LUMEN_LAYER_CASE_TEST(Expression, rank0_input)

TEST(Expression, BroadcastsLikePyTorch) {
  // Batch 2 against a per-channel constant without a batch dimension.
  ExpectExpression("add(@0,@1)", {{2, 3, 4, 5}, {3, 1, 1}}, {2, 3, 4, 5},
                   [](const std::vector<float>& v) { return v[0] + v[1]; });
  // Both operands grow: (4,1) and (3) give (4,3); the batch of 1 broadcasts against 5.
  ExpectExpression("mul(@0,@1)", {{4, 1}, {3}}, {4, 3},
                   [](const std::vector<float>& v) { return v[0] * v[1]; });
  ExpectExpression("sub(@0,@1)", {{1, 3, 4}, {5, 1, 4}}, {5, 3, 4},
                   [](const std::vector<float>& v) { return v[0] - v[1]; });
}

TEST(Expression, BroadcastsIntermediateResults) {
  // mul(@0,@1) is (2,3,5), a temporary that must broadcast again against @2's batch of 4.
  ExpectExpression("sub(mul(@0,@1),div(@2,2))", {{2, 1, 5}, {1, 3, 1}, {4, 1, 1, 5}}, {4, 2, 3, 5},
                   [](const std::vector<float>& v) { return v[0] * v[1] - v[2] / 2.0f; });
}

TEST(Expression, EvaluatesScalarConstantsAndFoldsThem) {
  ExpectExpression("mul(add(mul(@0,2),@1),8.0)", {{3, 2, 7, 9, 2}, {3, 2, 7, 9, 2}},
                   {3, 2, 7, 9, 2},
                   [](const std::vector<float>& v) { return (v[0] * 2.0f + v[1]) * 8.0f; });
  // mul(2,3) is folded when the layer is built.
  ExpectExpression("add(@0,mul(2,3))", {{2, 3}}, {2, 3},
                   [](const std::vector<float>& v) { return v[0] + 6.0f; });
  ExpectExpression("pow(2,@0)", {{5}}, {5},
                   [](const std::vector<float>& v) { return std::pow(2.0f, v[0]); });
}

TEST(Expression, CopiesABareInput) {
  ExpectExpression("@1", {{2, 3}, {4, 5}}, {4, 5},
                   [](const std::vector<float>& v) { return v[1]; });
}

TEST(Expression, ReusesBuffersInADeepTree) {
  // Every level needs a temporary; the buffers are recycled, and the values must stay right.
  std::string expr = "@0";
  for (int i = 0; i < 20; ++i) expr = "add(mul(" + expr + ",0.5),@" + std::to_string(i % 2) + ")";
  ExpectExpression(expr, {{2, 3, 8}, {3, 1}}, {2, 3, 8}, [](const std::vector<float>& v) {
    float value = v[0];
    for (int i = 0; i < 20; ++i) value = value * 0.5f + v[static_cast<size_t>(i % 2)];
    return value;
  });
}

TEST(Expression, RunsOnSeveralThreads) {
  ExpectExpression(
      "add(mul(@0,@1),@1)", {{2, 16, 40, 40}, {16, 1, 1}}, {2, 16, 40, 40},
      [](const std::vector<float>& v) { return v[0] * v[1] + v[1]; }, 3);
}

TEST(Expression, OneLayerServesConcurrentSessionsOfDifferentShapes) {
  // The layer is const after construction: each thread plans and runs its own shapes with its own
  // state, as two sessions of one model would.
  const Node op = MakeOperator("pnnx.Expression", {"expr=sub(mul(add(@0,1),@1),@1)"}, {}, 2);
  const std::unique_ptr<Layer> layer = LayerRegistry::Create(LayerConfig(op));
  const auto session = [&](const Shape& shape, float value, bool* ok) {
    test_support::TestContext context(1);
    const std::vector<Shape> shapes = {shape, {shape.back()}};
    const std::vector<Shape> output_shapes = layer->OutputShapes(shapes);
    const std::unique_ptr<LayerState> state =
        layer->Prepare(shapes, output_shapes, context.prepare());
    Tensor a(shape), b(Shape{shape.back()}), out(output_shapes[0]);
    a.Fill(value);
    b.Fill(2.0f);
    for (int run = 0; run < 200 && *ok; ++run) {
      layer->Forward({&a, &b}, {&out}, ForwardContext{context.compute(), state.get()});
      for (float got : out.ToRowMajor()) *ok = *ok && got == (value + 1.0f) * 2.0f - 2.0f;
    }
  };
  bool first_ok = true, second_ok = true;
  std::thread first(session, Shape{2, 3, 17}, 1.0f, &first_ok);
  std::thread second(session, Shape{5, 40}, 3.0f, &second_ok);
  first.join();
  second.join();
  EXPECT_TRUE(first_ok);
  EXPECT_TRUE(second_ok);
}

TEST(Expression, InfersTheBroadcastShapeForAnyInputSize) {
  const Node op = MakeOperator("pnnx.Expression", {"expr=mul(add(mul(@0,2),@1),8.0)"}, {}, 2);
  EXPECT_EQ(InferShapes(op, {{1, 3, 40, 40, 2}, {1, 3, 40, 40, 2}}),
            std::vector<Shape>({{1, 3, 40, 40, 2}}));
  EXPECT_EQ(InferShapes(op, {{4, 3, 10, 12, 2}, {1, 3, 10, 12, 2}}),
            std::vector<Shape>({{4, 3, 10, 12, 2}}));
}

TEST(Expression, RejectsShapesThatDoNotBroadcast) {
  const Node op = MakeOperator("pnnx.Expression", {"expr=add(@0,@1)"}, {}, 2);
  EXPECT_THAT(LayerError(op, {{1, 3, 4}, {1, 2, 4}}),
              HasSubstr("'add' at position 0 of 'add(@0,@1)': shapes (1,3,4) and (1,2,4) cannot "
                        "be broadcast together"));
}

TEST(Expression, RejectsAnInputTheOperatorDoesNotHave) {
  EXPECT_THAT(
      LayerError(MakeOperator("pnnx.Expression", {"expr=add(@0,@2)"}, {}, 2), {{1, 3}, {1, 3}}),
      HasSubstr("reads input @2 but the operator has 2 input(s)"));
  // Hostile: an input number that wraps around to 0 in 32 bits must not read input 0.
  EXPECT_THAT(LayerError(MakeOperator("pnnx.Expression", {"expr=add(@4294967296,@1)"}, {}, 2),
                         {{1, 3}, {1, 3}}),
              HasSubstr("input number @4294967296 is out of range"));
}

TEST(Expression, RejectsAMalformedExpressionWhenBuilt) {
  EXPECT_THAT(LayerError(MakeOperator("pnnx.Expression", {"expr=add(@0,"}), {{1, 3}}),
              HasSubstr("pnnx.Expression 'op': expression 'add(@0,'"));
}

// Integer arithmetic on whole-number floats, as pnnx writes it for `y & 3`, `y >> 3` on an int
// tensor: two's complement, arithmetic right shift.
TEST(Expression, ComputesBitwiseFunctionsOnWholeNumbers) {
  const Tensor input = Tensor::FromRowMajor({-7.0f, -1.0f, 0.0f, 5.0f, 12.0f, 1000.0f}, {6});
  const auto run = [&](const std::string& expr) {
    return RunLayer(MakeOperator("pnnx.Expression", {"expr=" + expr}), {input})[0].ToRowMajor();
  };
  EXPECT_EQ(run("and(@0,3)"), (std::vector<float>{1, 3, 0, 1, 0, 0}));
  EXPECT_EQ(run("or(@0,3)"), (std::vector<float>{-5, -1, 3, 7, 15, 1003}));
  EXPECT_EQ(run("xor(@0,3)"), (std::vector<float>{-6, -4, 3, 6, 15, 1003}));
  EXPECT_EQ(run("lshift(@0,3)"), (std::vector<float>{-56, -8, 0, 40, 96, 8000}));
  EXPECT_EQ(run("rshift(@0,3)"), (std::vector<float>{-1, -1, 0, 0, 1, 125}));
  EXPECT_EQ(run("bitwise_not(@0)"), (std::vector<float>{6, 0, -1, -6, -13, -1001}));
}

// Builds pnnx.Expression `expr` over inputs the file declares of `types`; returns its error.
std::string TypedExpressionError(const std::string& expr, const std::vector<DataType>& types) {
  const Node op =
      MakeOperator("pnnx.Expression", {"expr=" + expr}, {}, static_cast<int>(types.size()));
  std::vector<Operand> operands;
  for (size_t i = 0; i < types.size(); ++i) operands.push_back({op.input_names[i], {3}, types[i]});
  try {
    LayerRegistry::Create(LayerConfig(op, &operands));
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(Expression, RefusesBitwiseFunctionsOfFloatInputs) {
  EXPECT_EQ(TypedExpressionError("and(@0,3)", {DataType::kInt32}), "");
  EXPECT_EQ(TypedExpressionError("xor(@0,@1)", {DataType::kBool, DataType::kInt64}), "");
  EXPECT_THAT(TypedExpressionError("add(rshift(@1,@0),1)", {DataType::kInt64, DataType::kFloat32}),
              HasSubstr("pnnx.Expression 'op': 'rshift' at position 4 of 'add(rshift(@1,@0),1)' "
                        "is bitwise, and input @1 is f32: bitwise operations need integer or bool "
                        "tensors"));
}

TEST(Expression, RefusesComplexInputs) {
  EXPECT_THAT(TypedExpressionError("add(@0,3)", {DataType::kComplex64}),
              HasSubstr("pnnx.Expression 'op': input 0 is complex (c64): Lumen computes real "
                        "float32 tensors only"));
}

TEST(Expression, RefusesDeepNestingWithAnError) {
  // Hostile: 20,000 nested calls once overflowed the parser's stack.
  std::string expr;
  for (int i = 0; i < 20000; ++i) expr += "neg(";
  expr += "@0";
  for (int i = 0; i < 20000; ++i) expr += ")";
  const std::string error = LayerError(MakeOperator("pnnx.Expression", {"expr=" + expr}), {{1, 3}});
  EXPECT_THAT(error, HasSubstr("pnnx.Expression 'op': expression 'neg(neg("));
  EXPECT_THAT(error, HasSubstr("nested more than 256 levels deep"));
  EXPECT_LT(error.size(), 400u) << "the message quotes only the start of a long expression";
}

}  // namespace
}  // namespace lumen
