// nn.Conv2d: every algorithm path against PyTorch, the layer at other input sizes and batches
// against the reference kernel, sessions sharing one layer, shape inference and the errors a bad
// operator or input gets.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kernel/convolution_algorithm.hpp"
#include "layer/convolution/convolution.hpp"
#include "layer/layer_config.hpp"
#include "layer/layer_registry.hpp"
#include "math/packed_gemm.hpp"
#include "support/case_runner.hpp"
#include "support/kernel_testing.hpp"
#include "support/scoped_environment.hpp"
#include "support/source_directory.hpp"

namespace lumen {
namespace {

using test_support::ExpectClose;
using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RandomValues;
using test_support::ScopedEnvironment;
using test_support::TestContext;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Convolution, conv_1x1_pointwise)
LUMEN_LAYER_CASE_TEST(Convolution, conv_1x1_stride2)
LUMEN_LAYER_CASE_TEST(Convolution, conv_1x5_nobias)
LUMEN_LAYER_CASE_TEST(Convolution, conv_5x1)
LUMEN_LAYER_CASE_TEST(Convolution, conv_6x6_stride2_yolo_stem)
LUMEN_LAYER_CASE_TEST(Convolution, conv_7x7_stride2)
LUMEN_LAYER_CASE_TEST(Convolution, conv_batch3)
LUMEN_LAYER_CASE_TEST(Convolution, conv_depthwise_batch3_dilation2)
LUMEN_LAYER_CASE_TEST(Convolution, conv_depthwise_multiplier2)
LUMEN_LAYER_CASE_TEST(Convolution, conv_depthwise_stride2)
LUMEN_LAYER_CASE_TEST(Convolution, conv_dilation3)
LUMEN_LAYER_CASE_TEST(Convolution, conv_groups3)
LUMEN_LAYER_CASE_TEST(Convolution, conv_im2col_batch2_groups2_stride2)
LUMEN_LAYER_CASE_TEST(Convolution, conv_pointwise_batch2)
LUMEN_LAYER_CASE_TEST(Convolution, conv_same_even_kernel)
LUMEN_LAYER_CASE_TEST(Convolution, conv_stride2_odd)
LUMEN_LAYER_CASE_TEST(Convolution, conv_tiny_map_many_channels)
LUMEN_LAYER_CASE_TEST(Convolution, conv_valid)
LUMEN_LAYER_CASE_TEST(Convolution, conv_winograd2x2_batch3)
LUMEN_LAYER_CASE_TEST(Convolution, conv_winograd_batch2)
LUMEN_LAYER_CASE_TEST(Convolution, conv_winograd_odd)
LUMEN_LAYER_CASE_TEST(Convolution, conv_winograd_unpadded)
// Padding modes other than zeros (the input is padded, then convolved without padding).
LUMEN_LAYER_CASE_TEST(Convolution, conv_reflect_batch2_stride2)
LUMEN_LAYER_CASE_TEST(Convolution, conv_replicate_asymmetric)
LUMEN_LAYER_CASE_TEST(Convolution, conv_circular_dilation2_groups2)
LUMEN_LAYER_CASE_TEST(Convolution, conv_reflect_same)
LUMEN_LAYER_CASE_TEST(Convolution, conv_circular_pointwise_padded)
LUMEN_LAYER_CASE_TEST(Convolution, conv_replicate_unbatched)
// nn.Conv1d: the 2-D algorithms on a plane of height 1.
LUMEN_LAYER_CASE_TEST(Convolution, conv1d_batch3_nobias)
LUMEN_LAYER_CASE_TEST(Convolution, conv1d_same_even_kernel)
LUMEN_LAYER_CASE_TEST(Convolution, conv1d_valid_stride3)
LUMEN_LAYER_CASE_TEST(Convolution, conv1d_groups3_dilation2)
LUMEN_LAYER_CASE_TEST(Convolution, conv1d_depthwise)
LUMEN_LAYER_CASE_TEST(Convolution, conv1d_pointwise)
LUMEN_LAYER_CASE_TEST(Convolution, conv1d_unbatched)
LUMEN_LAYER_CASE_TEST(Convolution, conv1d_reflect)
LUMEN_LAYER_CASE_TEST(Convolution, conv1d_replicate_stride2)
LUMEN_LAYER_CASE_TEST(Convolution, conv1d_circular)

TEST(Convolution, RegistersBothSpellings) {
  EXPECT_TRUE(LayerRegistry::Has("nn.Conv2d"));
  EXPECT_TRUE(LayerRegistry::Has("nn.Conv1d"));
}

// The PyTorch cases again on 2 and 3 threads, with the graph's activation fusion off.
TEST(Convolution, CasesMatchOnMoreThreadsAndUnfused) {
  for (const char* name : {"conv_winograd_batch2", "conv_winograd2x2_batch3",
                           "conv_pointwise_batch2", "conv_depthwise_batch3_dilation2",
                           "conv_im2col_batch2_groups2_stride2", "conv_tiny_map_many_channels",
                           "conv_reflect_batch2_stride2", "conv_circular_dilation2_groups2",
                           "conv1d_batch3_nobias", "conv1d_groups3_dilation2", "conv1d_reflect"}) {
    for (int threads : {2, 3}) {
      SCOPED_TRACE(testing::Message() << name << " on " << threads << " threads");
      test_support::ExpectCaseMatches(
          lumen::test_support::SourceDirectory() + "/test/data/layers/" + name,
          {threads, false, true});
    }
  }
}

Node ConvolutionOp(const std::string& extra = "groups=1") {
  return MakeOperator("nn.Conv2d",
                      {"in_channels=4", "out_channels=6", "kernel_size=(3,3)", "stride=(1,1)",
                       "padding=(1,1)", "dilation=(1,1)", "bias=True", "padding_mode=zeros", extra},
                      {{"weight", {{6, 4, 3, 3}, {}}}, {"bias", {{6}, {}}}});
}

// --- Shape inference
// ------------------------------------------------------------------------------

TEST(Convolution, InfersTheOutputShapeForAnyInputSizeAndBatch) {
  const Node op = ConvolutionOp();
  EXPECT_EQ(InferShapes(op, {{1, 4, 9, 9}}), (std::vector<Shape>{{1, 6, 9, 9}}));
  EXPECT_EQ(InferShapes(op, {{5, 4, 1, 300}}), (std::vector<Shape>{{5, 6, 1, 300}}));
  EXPECT_EQ(InferShapes(op, {{0, 4, 7, 3}}), (std::vector<Shape>{{0, 6, 7, 3}}));
  // An unbatched (C, H, W) input, as PyTorch's Conv2d accepts.
  EXPECT_EQ(InferShapes(op, {{4, 10, 11}}), (std::vector<Shape>{{6, 10, 11}}));
}

TEST(Convolution, InfersStridedDilatedAndStringPaddedSizes) {
  const auto conv = [](const std::vector<std::string>& window) {
    std::vector<std::string> params = {"in_channels=2", "out_channels=3", "bias=False"};
    params.insert(params.end(), window.begin(), window.end());
    return MakeOperator("nn.Conv2d", params, {{"weight", {{3, 2, 4, 5}, {}}}});
  };
  // (H + 2p - d(k-1) - 1) / s + 1: (17 + 2 - 2*3 - 1) / 3 + 1 = 5, (20 + 4 - 2*4 - 1) / 2 + 1 = 8.
  EXPECT_EQ(
      InferShapes(conv({"kernel_size=(4,5)", "stride=(3,2)", "padding=(1,2)", "dilation=(2,2)"}),
                  {{2, 2, 17, 20}}),
      (std::vector<Shape>{{2, 3, 5, 8}}));
  EXPECT_EQ(InferShapes(conv({"kernel_size=(4,5)", "padding=same"}), {{1, 2, 9, 10}}),
            (std::vector<Shape>{{1, 3, 9, 10}}));
  EXPECT_EQ(
      InferShapes(conv({"kernel_size=(4,5)", "padding=same", "dilation=(2,3)"}), {{1, 2, 3, 4}}),
      (std::vector<Shape>{{1, 3, 3, 4}}));
  EXPECT_EQ(InferShapes(conv({"kernel_size=(4,5)", "padding=valid"}), {{3, 2, 9, 10}}),
            (std::vector<Shape>{{3, 3, 6, 6}}));
}

TEST(Convolution, RejectsAnInputWithOtherChannels) {
  EXPECT_THAT(LayerError(ConvolutionOp(), {{1, 5, 9, 9}}),
              HasSubstr("expected an input of shape (N,4,H,W) or (4,H,W), got (1,5,9,9)"));
  EXPECT_THAT(LayerError(ConvolutionOp(), {{4, 9}}),
              HasSubstr("expected an input of shape (N,4,H,W) or (4,H,W), got (4,9)"));
  EXPECT_THAT(LayerError(ConvolutionOp(), {{1, 1, 4, 9, 9}}),
              HasSubstr("expected an input of shape (N,4,H,W) or (4,H,W), got (1,1,4,9,9)"));
  EXPECT_THAT(LayerError(ConvolutionOp(), {{1, 4, 9, 9}, {1, 4, 9, 9}}),
              HasSubstr("expected 1 input(s), got 2"));
}

TEST(Convolution, RejectsAKernelLargerThanThePaddedInput) {
  Node op = ConvolutionOp();
  op.params["padding"] = Parameter::Parse("(0,0)");
  EXPECT_THAT(LayerError(op, {{1, 4, 2, 9}}),
              HasSubstr("the 3x3 kernel (dilation 1x1) does not fit in the input (1,4,2,9) "
                        "padded to 2x9"));
  op.params["dilation"] = Parameter::Parse("(1,5)");
  EXPECT_THAT(LayerError(op, {{1, 4, 9, 9}}),
              HasSubstr("the 3x3 kernel (dilation 1x5) does not fit in the input (1,4,9,9) "
                        "padded to 9x9"));
}

TEST(Convolution, RejectsAnEmptyPlane) {
  EXPECT_THAT(LayerError(ConvolutionOp(), {{1, 4, 0, 9}}),
              HasSubstr("the input (1,4,0,9) has an empty plane"));
}

TEST(Convolution, RejectsSizesThatOverflow) {
  Node op = ConvolutionOp();
  op.params["stride"] = Parameter::Parse("(2000000000,1)");
  op.params["padding"] = Parameter::Parse("(1000000000,1)");
  EXPECT_THAT(LayerError(op, {{1, 4, 9, 9}}), HasSubstr("input (1,4,9,9): "));
  EXPECT_THAT(LayerError(ConvolutionOp(), {{1, 4, 100000, 100000}}),
              HasSubstr("convolution input plane size"));
}

// --- Bad operators ------------------------------------------------------------------------------

TEST(Convolution, RejectsAKernelTooLargeToIndex) {
  Node op = ConvolutionOp();
  op.params["kernel_size"] = Parameter::Parse("(100000,100000)");
  EXPECT_THAT(LayerError(op, {{1, 4, 9, 9}}),
              HasSubstr("the weights of one output channel (4x100000x100000) are too many"));
}

TEST(Convolution, RejectsGroupsThatDoNotDivideTheChannels) {
  EXPECT_THAT(LayerError(ConvolutionOp("groups=3"), {{1, 4, 9, 9}}),
              HasSubstr("must be positive multiples of groups 3"));
}

TEST(Convolution, RejectsAWeightOfTheWrongShape) {
  Node op = ConvolutionOp();
  op.attributes["weight"].shape = {6, 4, 5, 5};
  EXPECT_THAT(LayerError(op, {{1, 4, 9, 9}}),
              HasSubstr("weight '@weight' has shape (6,4,5,5) but the parameters imply (6,4,3,3)"));
}

TEST(Convolution, RejectsAMissingWeight) {
  Node op = ConvolutionOp();
  op.attributes.erase("weight");
  EXPECT_EQ(LayerError(op, {{1, 4, 9, 9}}), "nn.Conv2d 'op': missing weight attribute '@weight'");
}

TEST(Convolution, AcceptsEveryPaddingModeAndRejectsOthers) {
  for (const char* mode : {"zeros", "reflect", "replicate", "circular"}) {
    Node op = ConvolutionOp();
    op.params["padding_mode"] = Parameter::Parse(mode);
    EXPECT_EQ(LayerError(op, {{2, 4, 9, 9}}, {{2, 6, 9, 9}}), "") << mode;
  }
  Node op = ConvolutionOp();
  op.params["padding_mode"] = Parameter::Parse("mirror");
  EXPECT_THAT(LayerError(op, {{1, 4, 9, 9}}), HasSubstr("unknown padding_mode 'mirror'"));
}

// PyTorch refuses a reflect pad as large as the input, and a circular one that wraps twice.
TEST(Convolution, RejectsAPaddingModeThatCannotPadTheInput) {
  Node op = ConvolutionOp();
  op.params["padding_mode"] = Parameter::Parse("reflect");
  EXPECT_THAT(LayerError(op, {{1, 4, 1, 9}}),
              HasSubstr("a reflect pad must be smaller than the input's extent"));
  op.params["padding_mode"] = Parameter::Parse("circular");
  op.params["padding"] = Parameter::Parse("(0,3)");
  EXPECT_THAT(LayerError(op, {{1, 4, 5, 2}}), HasSubstr("at most once"));
}

// A 1-D layer written as pnnx writes nn.Conv1d: 4 -> 6 channels, kernel 3.
Node Convolution1dOp(const std::string& padding = "padding=(1)") {
  return MakeOperator("nn.Conv1d",
                      {"in_channels=4", "out_channels=6", "kernel_size=(3)", "stride=(1)", padding,
                       "dilation=(1)", "groups=1", "bias=True", "padding_mode=zeros"},
                      {{"weight", {{6, 4, 3}, {}}}, {"bias", {{6}, {}}}});
}

TEST(Convolution, InfersOneDimensionalShapes) {
  EXPECT_EQ(InferShapes(Convolution1dOp(), {{3, 4, 20}}), std::vector<Shape>({{3, 6, 20}}));
  EXPECT_EQ(InferShapes(Convolution1dOp(), {{4, 7}}), std::vector<Shape>({{6, 7}}));
  EXPECT_EQ(InferShapes(Convolution1dOp("padding=valid"), {{1, 4, 7}}),
            std::vector<Shape>({{1, 6, 5}}));
  EXPECT_EQ(InferShapes(Convolution1dOp("padding=same"), {{1, 4, 7}}),
            std::vector<Shape>({{1, 6, 7}}));
}

TEST(Convolution, RejectsBadOneDimensionalInputsAndWeights) {
  EXPECT_THAT(LayerError(Convolution1dOp(), {{1, 4, 5, 5}}),
              HasSubstr("expected an input of shape (N,4,L) or (4,L), got (1,4,5,5)"));
  EXPECT_THAT(LayerError(Convolution1dOp(), {{1, 3, 5}}),
              HasSubstr("expected an input of shape (N,4,L) or (4,L), got (1,3,5)"));
  Node op = Convolution1dOp();
  op.attributes["weight"] = op.attributes["bias"];
  EXPECT_THAT(LayerError(op, {{1, 4, 5}}), HasSubstr("weight"));
  EXPECT_THAT(LayerError(Convolution1dOp("padding=(1,1)"), {{1, 4, 5}}),
              HasSubstr("'padding' must be one int"));
}

TEST(Convolution, RejectsSamePaddingWithAStride) {
  Node op = ConvolutionOp();
  op.params["padding"] = Parameter::Parse("same");
  EXPECT_EQ(LayerError(op, {{1, 4, 9, 9}}, {{1, 6, 9, 9}}), "");
  op.params["stride"] = Parameter::Parse("(1,2)");
  EXPECT_THAT(LayerError(op, {{1, 4, 9, 9}}),
              HasSubstr("padding='same' is not supported for strided convolutions"));
}

// --- The layer at other sizes, against the reference kernel
// ---------------------------------------

// A convolution with random weights (and bias), as an operator and as a kernel spec.
struct RandomConvolution {
  Node op;
  ConvolutionSpec spec;
};

// nn.Conv2d in -> out with a k x k kernel, `groups`, `stride` and `padding`, random weights.
RandomConvolution MakeRandomConvolution(int in, int out, int kernel, int groups, int stride,
                                        int padding, bool bias, std::mt19937* generator) {
  RandomConvolution conv;
  conv.spec.in_channels = in;
  conv.spec.out_channels = out;
  conv.spec.groups = groups;
  conv.spec.window.kernel_h = conv.spec.window.kernel_w = kernel;
  conv.spec.window.stride_h = conv.spec.window.stride_w = stride;
  conv.spec.window.pad_top = conv.spec.window.pad_bottom = padding;
  conv.spec.window.pad_left = conv.spec.window.pad_right = padding;
  const float bound = 1.0f / std::sqrt(static_cast<float>(in / groups * kernel * kernel));
  conv.spec.weights = RandomValues(static_cast<size_t>(out) * in / groups * kernel * kernel,
                                   generator, -bound, bound);
  if (bias) conv.spec.bias = RandomValues(out, generator, -0.5f, 0.5f);
  const std::string k = std::to_string(kernel);
  const std::string s = std::to_string(stride);
  const std::string p = std::to_string(padding);
  std::map<std::string, test_support::Weight> weights = {
      {"weight", {{out, in / groups, kernel, kernel}, conv.spec.weights}}};
  if (bias) weights["bias"] = {{out}, conv.spec.bias};
  conv.op = MakeOperator(
      "nn.Conv2d",
      {"in_channels=" + std::to_string(in), "out_channels=" + std::to_string(out),
       "kernel_size=(" + k + "," + k + ")", "stride=(" + s + "," + s + ")",
       "padding=(" + p + "," + p + ")", "dilation=(1,1)", "groups=" + std::to_string(groups),
       bias ? "bias=True" : "bias=False", "padding_mode=zeros"},
      weights);
  return conv;
}

// What one run of a layer gave, and what it used.
struct LayerRun {
  Tensor output;
  std::string algorithm;      // the algorithm Prepare chose
  bool scratch_grew = false;  // Forward needed scratch Prepare had not reserved
};

// Runs `layer` on `input` as a session does: shape inference, Prepare, Forward on `threads`
// threads (twice: the second run must give the same output).
LayerRun RunPrepared(const Layer& layer, const Tensor& input, int threads) {
  TestContext context(threads);
  const std::vector<Shape> output_shapes = layer.OutputShapes({input.shape()});
  std::unique_ptr<LayerState> state =
      layer.Prepare({input.shape()}, output_shapes, context.prepare());
  LayerRun run;
  run.algorithm = static_cast<const ConvolutionState&>(*state).algorithm().name();
  const size_t reserved = context.compute().workspace->bytes();
  run.output = Tensor(output_shapes[0]);
  Tensor again(output_shapes[0]);
  const ForwardContext forward{context.compute(), state.get()};
  layer.Forward({&input}, {&run.output}, forward);
  layer.Forward({&input}, {&again}, forward);
  run.scratch_grew = context.compute().workspace->bytes() != reserved;
  EXPECT_EQ(run.output.ToRowMajor(), again.ToRowMajor()) << "a second run differs";
  return run;
}

// The reference kernel's output for `input` (N, C, H, W), sample by sample, in fcube order.
std::vector<float> ReferenceOutput(const ConvolutionSpec& spec, const Tensor& input,
                                   const Activation& activation) {
  const auto reference = MakeConvolutionAlgorithm(ConvolutionAlgorithmKind::kReference, spec);
  const ConvolutionShape shape = MakeConvolutionShape(spec.window, static_cast<int>(input.rows()),
                                                      static_cast<int>(input.cols()));
  const size_t samples = input.shape()[0];
  const size_t input_floats = input.size() / samples;
  const size_t output_floats =
      static_cast<size_t>(spec.out_channels) * shape.output_h * shape.output_w;
  std::vector<float> output(samples * output_floats);
  TestContext context(1);
  const ConvolutionPlan plan = reference->Plan(shape, activation, 1);
  for (size_t sample = 0; sample < samples; ++sample) {
    reference->Run(plan, input.data() + sample * input_floats,
                   output.data() + sample * output_floats, context.compute());
  }
  return output;
}

// A random (N, C, H, W) input.
Tensor RandomInput(uint32_t batch, uint32_t channels, uint32_t height, uint32_t width,
                   std::mt19937* generator) {
  const Shape shape{batch, channels, height, width};
  return Tensor::FromRowMajor(RandomValues(ShapeElementCount(shape), generator), shape);
}

// The fcube-order elements of `tensor`.
std::vector<float> Elements(const Tensor& tensor) {
  return std::vector<float>(tensor.data(), tensor.data() + tensor.size());
}

// One layer object, built once, at the sizes a session may be planned for in turn: each size
// picks its own algorithm (Winograd F(4x4) on large maps, F(2x2) on middling ones, im2col on tiny
// ones), built the first time it is chosen, and every size gives the reference's output whatever
// the batch and thread count; Prepare reserves all the scratch Forward uses.
TEST(Convolution, OneLayerComputesEveryInputSizeAndBatch) {
  std::mt19937 generator(42);
  const RandomConvolution conv = MakeRandomConvolution(16, 20, 3, 1, 1, 1, true, &generator);
  const std::unique_ptr<Layer> layer = LayerRegistry::Create(LayerConfig(conv.op));
  struct Size {
    uint32_t batch, height, width;
    const char* algorithm;  // on AVX-512 (kPanelRows 32), as measured
  };
  const Size sizes[] = {{1, 28, 28, "winograd"}, {2, 13, 14, "winograd-2x2"},
                        {3, 5, 7, "im2col"},     {2, 41, 3, "winograd-2x2"},
                        {1, 1, 1, "im2col"},     {2, 28, 28, "winograd"}};
  for (const Size& size : sizes) {
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE(testing::Message() << size.batch << "x16x" << size.height << "x" << size.width
                                      << " on " << threads << " threads");
      const Tensor input = RandomInput(size.batch, 16, size.height, size.width, &generator);
      const LayerRun run = RunPrepared(*layer, input, threads);
      if (kPanelRows == 32) {
        EXPECT_EQ(run.algorithm, size.algorithm);
      }
      EXPECT_FALSE(run.scratch_grew) << "Forward used scratch Prepare did not reserve";
      const float tolerance = 1e-3f;  // Winograd's (see test_convolution_algorithms.cpp)
      ExpectClose(Elements(run.output), ReferenceOutput(conv.spec, input, {}), tolerance, tolerance,
                  run.algorithm);
    }
  }
}

// A `--to bf16` file's layer: its weights as stored, bf16, and the spec's fp32 copy set to the
// values they stand for.
RandomConvolution Bf16Convolution(int in, int out, int kernel, int groups, int stride, int padding,
                                  std::mt19937* generator) {
  RandomConvolution conv =
      MakeRandomConvolution(in, out, kernel, groups, stride, padding, true, generator);
  conv.spec.weights = test_support::StoreAsBFloat16(&conv.op, "weight");
  return conv;
}

// bf16 weights multiply in bf16 (LUMEN_BF16_PRODUCTS=on forces what an AVX512-BF16 CPU chooses)
// except in the narrow layers, which compute exactly what the fp32 layer of the same (widened)
// weights does, as every layer does with LUMEN_BF16_PRODUCTS=off. In bf16, each layer stays within
// bf16's rounding of the fp32 result, and differs from it (the activations are rounded too).
TEST(Convolution, Bf16WeightsMultiplyInBf16ButInNarrowLayers) {
  std::mt19937 generator(44);
  struct Layer2d {
    RandomConvolution conv;
    bool narrow;  // fewer than 32 products per output or 32 outputs (per group)
  };
  const Layer2d layers[] = {
      {Bf16Convolution(32, 48, 3, 1, 2, 1, &generator), false},  // im2col
      {Bf16Convolution(48, 64, 1, 1, 1, 0, &generator), false},  // 1x1 from the planes
      {Bf16Convolution(32, 40, 3, 1, 1, 1, &generator), false},  // Winograd F(2x2)
      {Bf16Convolution(16, 96, 1, 1, 1, 0, &generator), true},   // 16 products per output
      {Bf16Convolution(96, 24, 1, 1, 1, 0, &generator), true},   // 24 outputs
      {Bf16Convolution(64, 64, 3, 64, 1, 1, &generator), true},  // depthwise
  };
  for (const Layer2d& layer : layers) {
    // 12x12: Winograd as F(2x2) (too few 4x4 tiles for F(4x4)) on AVX2 and AVX-512 alike.
    const Tensor input = RandomInput(2, layer.conv.spec.in_channels, 12, 12, &generator);
    const std::vector<float> fp32 = ReferenceOutput(layer.conv.spec, input, {});
    for (const char* products : {"on", "off"}) {
      SCOPED_TRACE(testing::Message()
                   << layer.conv.op.name << " " << layer.conv.spec.in_channels << " -> "
                   << layer.conv.spec.out_channels << ", kernel " << layer.conv.spec.window.kernel_h
                   << ", bf16 products " << products);
      const ScopedEnvironment environment("LUMEN_BF16_PRODUCTS", products);
      const std::unique_ptr<Layer> built = LayerRegistry::Create(LayerConfig(layer.conv.op));
      const LayerRun run = RunPrepared(*built, input, 2);
      EXPECT_FALSE(run.scratch_grew);
      const std::vector<float> got = Elements(run.output);
      const bool in_bf16 = std::string(products) == "on" && !layer.narrow;
      // fp32: the sums' order (Winograd's 1e-3); bf16: the activations' rounding, 2^-9 of each of
      // up to 288 products of order 1/sqrt(288) (measured below 4e-3).
      const float tolerance = in_bf16 ? 2e-2f : 1e-3f;
      ExpectClose(got, fp32, tolerance, tolerance, run.algorithm);
      double largest_difference = 0.0;
      for (size_t i = 0; i < got.size(); ++i) {
        largest_difference = std::max(largest_difference, std::fabs(double{got[i]} - fp32[i]));
      }
      if (in_bf16) {
        EXPECT_GT(largest_difference, 1e-4) << "computed in fp32, not bf16";
      } else {
        EXPECT_LT(largest_difference, 1e-4) << "rounded as if in bf16";
      }
    }
  }
}

// The other algorithms' layers (built in the constructor: one candidate each) at other sizes.
TEST(Convolution, PointwiseDepthwiseAndStridedLayersComputeOtherSizes) {
  std::mt19937 generator(43);
  const RandomConvolution convs[] = {
      MakeRandomConvolution(12, 20, 1, 1, 1, 0, true, &generator),  // pointwise
      MakeRandomConvolution(8, 16, 3, 8, 2, 1, true, &generator),   // depthwise, multiplier 2
      MakeRandomConvolution(6, 9, 5, 3, 2, 2, false, &generator),   // groups 3, 2 channels each
      MakeRandomConvolution(3, 8, 3, 1, 1, 1, true, &generator),    // a stem's 3 channels
  };
  // The last two read their few channels in place (small-depth): the grouped one always, the
  // other where the output's columns are at least half a tile tall (im2col where shorter).
  const auto algorithm_for = [&](size_t index, uint32_t height) -> std::string {
    if (index < 2) return index == 0 ? "pointwise" : "depthwise";
    const int output_h = convs[index].spec.window.OutputHeight(static_cast<int>(height));
    const bool grouped = convs[index].spec.groups > 1;
    return grouped || output_h >= kPanelRows / 2 ? "small-depth" : "im2col";
  };
  for (size_t index = 0; index < std::size(convs); ++index) {
    const std::unique_ptr<Layer> layer = LayerRegistry::Create(LayerConfig(convs[index].op));
    for (const auto& [batch, height, width] :
         std::vector<std::array<uint32_t, 3>>{{1, 9, 7}, {3, 30, 17}, {2, 1, 40}, {1, 64, 64}}) {
      const int threads = 1 + static_cast<int>(height % 3);
      SCOPED_TRACE(testing::Message() << "convolution " << index << " " << batch << "x" << height
                                      << "x" << width << " on " << threads << " threads");
      const Tensor input = RandomInput(batch, static_cast<uint32_t>(convs[index].spec.in_channels),
                                       height, width, &generator);
      const LayerRun run = RunPrepared(*layer, input, threads);
      EXPECT_EQ(run.algorithm, algorithm_for(index, height));
      EXPECT_FALSE(run.scratch_grew) << "Forward used scratch Prepare did not reserve";
      ExpectClose(Elements(run.output), ReferenceOutput(convs[index].spec, input, {}), 1e-4f, 1e-4f,
                  run.algorithm);
    }
  }
}

// An unbatched (C, H, W) input gives what the same input with a batch of one gives.
TEST(Convolution, UnbatchedInputMatchesABatchOfOne) {
  std::mt19937 generator(44);
  const RandomConvolution conv = MakeRandomConvolution(4, 6, 3, 2, 1, 1, true, &generator);
  const std::unique_ptr<Layer> layer = LayerRegistry::Create(LayerConfig(conv.op));
  const Tensor batched = RandomInput(1, 4, 9, 11, &generator);
  Tensor unbatched = batched;
  unbatched.Reshape({4, 9, 11});
  const LayerRun run = RunPrepared(*layer, unbatched, 2);
  EXPECT_EQ(run.output.shape(), (Shape{6, 9, 11}));
  EXPECT_EQ(Elements(run.output), Elements(RunPrepared(*layer, batched, 2).output));
}

// Sessions on many threads share one layer: each thread prepares it for its own sizes (the first
// Prepares of the 3x3 layer build its Winograd and im2col weights at the same time) and runs it.
TEST(Convolution, SessionsOnManyThreadsShareOneLayer) {
  std::mt19937 generator(45);
  const RandomConvolution conv = MakeRandomConvolution(16, 16, 3, 1, 1, 1, true, &generator);
  const std::unique_ptr<Layer> layer = LayerRegistry::Create(LayerConfig(conv.op));
  std::vector<Tensor> inputs;
  std::vector<std::vector<float>> expected;
  for (const auto& [height, width] : std::vector<std::pair<uint32_t, uint32_t>>{
           {28, 28}, {13, 14}, {5, 7}, {40, 9}, {3, 3}, {20, 21}}) {
    inputs.push_back(RandomInput(2, 16, height, width, &generator));
    expected.push_back(ReferenceOutput(conv.spec, inputs.back(), {}));
  }
  constexpr int kSessions = 6;
  std::vector<std::vector<std::vector<float>>> outputs(kSessions);
  std::vector<std::thread> sessions;
  for (int session = 0; session < kSessions; ++session) {
    sessions.emplace_back([&, session] {
      for (size_t step = 0; step < inputs.size(); ++step) {
        const Tensor& input = inputs[(step + session) % inputs.size()];
        outputs[session].push_back(Elements(RunPrepared(*layer, input, 1 + session % 2).output));
      }
    });
  }
  for (std::thread& session : sessions) session.join();
  for (int session = 0; session < kSessions; ++session) {
    for (size_t step = 0; step < inputs.size(); ++step) {
      ExpectClose(outputs[session][step], expected[(step + session) % inputs.size()], 1e-3f, 1e-3f,
                  "session " + std::to_string(session) + " step " + std::to_string(step));
    }
  }
}

// --- Fusion -------------------------------------------------------------------------------------

// The graph offers a following activation; the layer takes one and applies it to its output.
TEST(Convolution, FusesOneActivation) {
  std::mt19937 generator(46);
  for (const auto& [in, out, kernel, groups] :
       std::vector<std::array<int, 4>>{{16, 16, 3, 1}, {8, 8, 3, 8}, {12, 6, 1, 1}, {3, 5, 3, 1}}) {
    const RandomConvolution conv =
        MakeRandomConvolution(in, out, kernel, groups, 1, kernel / 2, true, &generator);
    std::unique_ptr<Layer> layer = LayerRegistry::Create(LayerConfig(conv.op));
    const Activation silu{Activation::Kind::kSilu};
    EXPECT_TRUE(layer->FuseActivation(silu));
    EXPECT_FALSE(layer->FuseActivation({Activation::Kind::kRelu})) << "a second activation";
    const Tensor input = RandomInput(2, static_cast<uint32_t>(in), 30, 31, &generator);
    const LayerRun run = RunPrepared(*layer, input, 2);
    ExpectClose(Elements(run.output), ReferenceOutput(conv.spec, input, silu), 1e-3f, 1e-3f,
                run.algorithm + " with a fused SiLU");
  }
}

// A convolution is not an activation the graph could fuse into the layer before it.
TEST(Convolution, IsNotAnElementwiseActivation) {
  const std::unique_ptr<Layer> layer = LayerRegistry::Create(LayerConfig(ConvolutionOp()));
  EXPECT_EQ(layer->ElementwiseActivation(), nullptr);
}

}  // namespace
}  // namespace lumen
