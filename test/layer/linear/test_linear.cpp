// nn.Linear against PyTorch: no bias, ranks 1 to 4, batches, a fused ReLU; the three ways the
// layer multiplies (dot products, one GEMM spread over threads, one GEMM per slice) against a
// direct loop on random shapes; shape inference and its errors.
//
// The cases run PNNX models written by scripts/make_layer_cases.py, whose expected outputs come
// from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "layer/layer_config.hpp"
#include "layer/layer_registry.hpp"
#include "support/case_runner.hpp"
#include "support/kernel_testing.hpp"
#include "support/scoped_environment.hpp"

namespace lumen {
namespace {

using test_support::ExpectClose;
using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RandomValues;
using test_support::RunLayer;
using test_support::TestContext;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Linear, linear_batch2)
LUMEN_LAYER_CASE_TEST(Linear, linear_nobias)
LUMEN_LAYER_CASE_TEST(Linear, linear_rank3)
LUMEN_LAYER_CASE_TEST(Linear, linear_rank3_batch3)
LUMEN_LAYER_CASE_TEST(Linear, linear_rank4)
LUMEN_LAYER_CASE_TEST(Linear, linear_relu)
LUMEN_LAYER_CASE_TEST(Linear, linear_vector)

// A Linear layer with random weights and bias.
struct RandomLinear {
  int in, out;
  std::vector<float> weight, bias;
  Node op;

  RandomLinear(int in_features, int out_features, std::mt19937* generator)
      : in(in_features),
        out(out_features),
        weight(RandomValues(static_cast<size_t>(in) * out, generator)),
        bias(RandomValues(out, generator)),
        op(MakeOperator("nn.Linear",
                        {"in_features=" + std::to_string(in), "out_features=" + std::to_string(out),
                         "bias=True"},
                        {{"weight", {{out, in}, weight}}, {"bias", {{out}, bias}}})) {}

  // y = x W^T + b over the last dimension of row-major `x`, in double.
  std::vector<float> Reference(const std::vector<float>& x) const {
    std::vector<float> y;
    for (size_t row = 0; row < x.size() / in; ++row) {
      for (int feature = 0; feature < out; ++feature) {
        double sum = bias[feature];
        for (int i = 0; i < in; ++i) {
          sum +=
              static_cast<double>(x[row * in + i]) * weight[static_cast<size_t>(feature) * in + i];
        }
        y.push_back(static_cast<float>(sum));
      }
    }
    return y;
  }
};

TEST(Linear, InfersTheShapeForAnyLeadingDimensions) {
  const Node op = MakeOperator("nn.Linear", {"in_features=4", "out_features=3", "bias=False"},
                               {{"weight", {{3, 4}, {}}}});
  EXPECT_EQ(InferShapes(op, {{4}}), std::vector<Shape>({{3}}));
  EXPECT_EQ(InferShapes(op, {{8, 4}}), std::vector<Shape>({{8, 3}}));
  EXPECT_EQ(InferShapes(op, {{2, 77, 4}}), std::vector<Shape>({{2, 77, 3}}));
  EXPECT_EQ(InferShapes(op, {{2, 3, 5, 6, 4}}), std::vector<Shape>({{2, 3, 5, 6, 3}}));
}

// Random shapes through each of the layer's paths, on 1 and 3 threads: single rows (dot
// products), one tall slice (a GEMM split over the threads), many tall slices (one GEMM each),
// slices of few rows stacked into one GEMM or, past 1 MB of scratch, into several, and many
// slices of one row (a sequence-first (L, 1, E) operand) stacked likewise.
TEST(Linear, MatchesADirectLoopOnRandomShapes) {
  std::mt19937 generator(41);
  const std::vector<Shape> shapes = {{1, 300},     {4, 1, 300},     {70, 24},      {1, 129, 40},
                                     {5, 37, 24},  {2, 3, 9, 17},   {3, 300},      {6, 1, 1, 45},
                                     {4, 130, 9},  {1, 29, 23, 33}, {40, 20, 600}, {0, 5, 7},
                                     {197, 1, 96}, {31, 1, 8},      {3000, 1, 130}};
  for (const Shape& shape : shapes) {
    const int in = static_cast<int>(shape.back());
    const int out = std::uniform_int_distribution<int>(1, 140)(generator);
    const RandomLinear linear(in, out, &generator);
    const std::vector<float> x = RandomValues(ShapeElementCount(shape), &generator);
    const std::vector<float> expected = linear.Reference(x);
    for (int threads : {1, 3}) {
      const std::vector<Tensor> outputs =
          RunLayer(linear.op, {Tensor::FromRowMajor(x, shape)}, threads);
      Shape output_shape = shape;
      output_shape.back() = static_cast<uint32_t>(out);
      ASSERT_EQ(outputs[0].shape(), output_shape);
      ExpectClose(outputs[0].ToRowMajor(), expected, 1e-5f, 1e-4f,
                  ShapeToString(shape) + " -> " + std::to_string(out) + " on " +
                      std::to_string(threads) + " threads");
    }
  }
}

// A `--to bf16` file's Linear (LUMEN_BF16_PRODUCTS=on forces what an AVX512-BF16 CPU chooses):
// single rows through the bf16 matrix-vector product, slices of more rows through the bf16 GEMM,
// many slices of few rows stacked into one bf16 GEMM (of single rows: transposed first),
// each within bf16's rounding of the fp32 layer on the same (widened) weights and different from
// it (the inputs are rounded too); a narrow layer (23 inputs, or 31 outputs) and
// LUMEN_BF16_PRODUCTS=off compute exactly what the fp32 layer does.
TEST(Linear, Bf16WeightsMultiplyInBf16ButInNarrowLayers) {
  std::mt19937 generator(45);
  struct Case {
    Shape input;
    int out;
    bool narrow;
  };
  const Case cases[] = {{{1, 300}, 100, false},    {{4, 1, 96}, 40, false},  {{70, 64}, 33, false},
                        {{2, 37, 130}, 64, false}, {{40, 1, 96}, 48, false}, {{5, 23}, 64, true},
                        {{3, 64}, 31, true}};
  for (const Case& c : cases) {
    const int in = static_cast<int>(c.input.back());
    RandomLinear linear(in, c.out, &generator);
    linear.weight = test_support::StoreAsBFloat16(&linear.op, "weight");
    const std::vector<float> x = RandomValues(ShapeElementCount(c.input), &generator);
    const std::vector<float> fp32 = linear.Reference(x);
    for (const char* products : {"on", "off"}) {
      const std::string what =
          ShapeToString(c.input) + " -> " + std::to_string(c.out) + ", bf16 products " + products;
      const test_support::ScopedEnvironment environment("LUMEN_BF16_PRODUCTS", products);
      const std::vector<float> got =
          RunLayer(linear.op, {Tensor::FromRowMajor(x, c.input)}, 2)[0].ToRowMajor();
      const bool in_bf16 = std::string(products) == "on" && !c.narrow;
      // bf16: the inputs' rounding, 2^-9 of each of up to 300 products of order 1 (measured
      // below 0.021 on these sums of order 10); fp32: the order of the sums.
      ExpectClose(got, fp32, in_bf16 ? 0.1f : 1e-4f, in_bf16 ? 0.0f : 1e-4f, what);
      double largest_difference = 0.0;
      for (size_t i = 0; i < got.size(); ++i) {
        largest_difference = std::max(largest_difference, std::fabs(double{got[i]} - fp32[i]));
      }
      if (in_bf16) {
        EXPECT_GT(largest_difference, 1e-3) << what << ": computed in fp32, not bf16";
      } else {
        EXPECT_LT(largest_difference, 1e-4) << what << ": rounded as if in bf16";
      }
    }
  }
}

// A fused activation is applied after the bias, on every path.
TEST(Linear, AppliesAFusedActivationAfterTheBias) {
  std::mt19937 generator(43);
  const RandomLinear linear(20, 30, &generator);
  std::unique_ptr<Layer> layer = LayerRegistry::Create(LayerConfig(linear.op));
  const Activation relu6{Activation::Kind::kRelu6};
  ASSERT_TRUE(layer->FuseActivation(relu6));
  EXPECT_FALSE(layer->FuseActivation(relu6));  // one activation only
  for (const Shape& shape : std::vector<Shape>{{3, 20}, {1, 20}, {4, 5, 20}}) {
    const std::vector<float> x = RandomValues(ShapeElementCount(shape), &generator, -3.0f, 3.0f);
    std::vector<float> expected = linear.Reference(x);
    for (float& value : expected) value = std::min(std::max(value, 0.0f), 6.0f);
    const Tensor input = Tensor::FromRowMajor(x, shape);
    const std::vector<Shape> output_shapes = layer->OutputShapes({shape});
    TestContext context(2);
    std::unique_ptr<LayerState> state = layer->Prepare({shape}, output_shapes, context.prepare());
    Tensor output(output_shapes[0]);
    layer->Forward({&input}, {&output}, ForwardContext{context.compute(), state.get()});
    ExpectClose(output.ToRowMajor(), expected, 1e-5f, 1e-4f,
                "relu6(linear) " + ShapeToString(shape));
  }
}

TEST(Linear, RejectsAnInputWithOtherFeatures) {
  const Node op = MakeOperator("nn.Linear", {"in_features=4", "out_features=3", "bias=False"},
                               {{"weight", {{3, 4}, {}}}});
  EXPECT_THAT(LayerError(op, {{1, 5}}),
              HasSubstr("expected an input of shape (...,4) (in_features 4), got (1,5)"));
  EXPECT_THAT(LayerError(op, std::vector<Shape>{Shape{}}), HasSubstr("got ()"));
}

TEST(Linear, RejectsWeightsOfAnotherShape) {
  const Node op = MakeOperator("nn.Linear", {"in_features=4", "out_features=3", "bias=False"},
                               {{"weight", {{4, 3}, {}}}});
  EXPECT_THAT(LayerError(op, {{1, 4}}),
              HasSubstr("weight '@weight' has shape (4,3) but the parameters imply (3,4)"));
}

}  // namespace
}  // namespace lumen
