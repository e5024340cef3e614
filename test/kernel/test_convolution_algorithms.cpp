// Every fast convolution algorithm against the reference one, on random data.
//
// Each geometry below runs the reference convolution (the definition, loop by loop) and every
// algorithm that can handle the geometry (im2col always; pointwise, depthwise and Winograd where
// their Applies function says so; and whatever ChooseConvolutionAlgorithm picks) on the same
// random input, weights and bias, with 1 and with 2 threads, and compares the outputs elementwise.
// The geometries are picked to reach the separate code paths inside the fast algorithms (the
// comment above each group says which), because a path that no geometry reaches is untested.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "lumen/base/error.hpp"
#include "lumen/kernel/convolution_algorithm.hpp"
#include "support/kernel_testing.hpp"

namespace lumen {
namespace {

using test_support::ExpectClose;
using test_support::RandomValues;
using test_support::ScopedThreadCount;
using ::testing::HasSubstr;
using Kind = Activation::Kind;

// GEMM-based and direct algorithms only add the same products in another order. With weights
// scaled by 1/sqrt(fan-in) the outputs are of order 1, and reordering a float32 sum of up to a
// few thousand such products moves it by about 1e-6 (measured: below 3e-6 here), so 1e-4 leaves a
// wide margin while any real mistake (a wrong tap, a missing channel) is off by 0.01 or more.
constexpr float kTolerance = 1e-4f;

// Winograd F(4x4, 3x3) rounds differently, not just in another order: its input transform
// multiplies by up to 5 and its output transform by up to 8, so the values it adds and then
// cancels are several times larger than the products of the direct sum, and so are their
// rounding errors. Measured here: below 2e-5 on outputs of order 1, about six times the im2col
// error on the same geometry. 1e-3 keeps a wide margin over that and still catches any wrong
// coefficient or misplaced tile, which is off by 0.01 or more.
constexpr float kWinogradTolerance = 1e-3f;

// One convolution to test, built by Conv() and the methods below so that each case of the table
// reads as a sentence.
struct Geometry {
  std::string name;  // a valid test-name identifier
  int in_channels = 1, out_channels = 1, groups = 1;
  int input_h = 1, input_w = 1;
  Window2d window;
  bool bias = true;
  Activation activation;

  // Splits the channels into `count` groups.
  Geometry& Groups(int count) {
    groups = count;
    return *this;
  }
  // Sets the stride along rows and columns.
  Geometry& Stride(int rows, int columns) {
    window.stride_h = rows;
    window.stride_w = columns;
    return *this;
  }
  // Sets the dilation along rows and columns.
  Geometry& Dilation(int rows, int columns) {
    window.dilation_h = rows;
    window.dilation_w = columns;
    return *this;
  }
  // Sets the zero padding on each side (they may differ: Window2d allows asymmetric padding).
  Geometry& Padding(int top, int bottom, int left, int right) {
    window.pad_top = top;
    window.pad_bottom = bottom;
    window.pad_left = left;
    window.pad_right = right;
    return *this;
  }
  // Sets the same zero padding on every side.
  Geometry& Padding(int all) { return Padding(all, all, all, all); }
  // Drops the bias.
  Geometry& NoBias() {
    bias = false;
    return *this;
  }
  // Applies `kind` (with parameter `alpha`) after the bias.
  Geometry& Activate(Kind kind, float alpha = 0.0f) {
    activation = {kind, alpha};
    return *this;
  }
};

// Shows a geometry by its name in gtest's messages (instead of its bytes).
void PrintTo(const Geometry& geometry, std::ostream* stream) { *stream << geometry.name; }

// A convolution with stride 1, no dilation, no padding, a bias and no activation; the builder
// methods change the rest.
Geometry Conv(const std::string& name, int in_channels, int out_channels, int input_h, int input_w,
              int kernel_h, int kernel_w) {
  Geometry geometry;
  geometry.name = name;
  geometry.in_channels = in_channels;
  geometry.out_channels = out_channels;
  geometry.input_h = input_h;
  geometry.input_w = input_w;
  geometry.window.kernel_h = kernel_h;
  geometry.window.kernel_w = kernel_w;
  return geometry;
}

// Where the paths are chosen (see source/kernel/): im2col cuts the output into blocks of columns
// when its im2col matrix exceeds 1M floats; pointwise splits the output channels across tasks
// when there are few pixel blocks; Winograd (both tile sizes) gives each thread private blocks
// when there are at least threads * private_tiles / 2 tiles, where private_tiles =
// max(kPanelRows, 262144 / (positions * (in + out))), and otherwise shares one block.
std::vector<Geometry> Geometries() {
  return {
      // im2col on tiny maps (fewer pixels than one micro-kernel panel).
      Conv("im2col_input_1x1_k3x3_pad1", 3, 5, 1, 1, 3, 3).Padding(1),
      Conv("im2col_5x7_k3x3_stride2_relu", 3, 17, 5, 7, 3, 3)
          .Stride(2, 2)
          .Padding(1)
          .Activate(Kind::kRelu),
      Conv("im2col_17x9_k7x7_stride3_nobias", 3, 33, 17, 9, 7, 7).Stride(3, 3).Padding(3).NoBias(),
      // 70 output channels: several row panels; K = 33 * 9 = 297: two depth slices of the GEMM.
      Conv("im2col_tiny_map_deep_k3x3_sigmoid", 33, 70, 5, 7, 3, 3)
          .Padding(1)
          .Activate(Kind::kSigmoid),
      Conv("im2col_single_channel_kernel_7x7_over_5x7", 1, 1, 5, 7, 7, 7).Padding(3),
      // im2col on larger maps.
      Conv("im2col_13x17_k3x3_dilation2_asymmetric_pad_silu", 5, 17, 13, 17, 3, 3)
          .Dilation(2, 2)
          .Padding(2, 1, 0, 3)
          .Activate(Kind::kSilu),
      Conv("im2col_13x17_k1x5_groups3_hardswish", 33, 9, 13, 17, 1, 5)
          .Groups(3)
          .Padding(0, 0, 2, 2)
          .Activate(Kind::kHardswish),
      Conv("im2col_17x9_k5x1_groups2_stride2x1_leaky", 6, 10, 17, 9, 5, 1)
          .Groups(2)
          .Stride(2, 1)
          .Padding(2, 2, 0, 0)
          .Activate(Kind::kLeakyRelu, 0.1f),
      Conv("im2col_13x17_k3x3_groups3_stride3_dilation2", 6, 3, 13, 17, 3, 3)
          .Groups(3)
          .Stride(3, 3)
          .Dilation(2, 2)
          .Padding(2),
      Conv("im2col_13x17_k1x1_stride2", 5, 17, 13, 17, 1, 1).Stride(2, 2),
      Conv("im2col_13x17_k3x3_dilation1x2_groups2", 4, 6, 13, 17, 3, 3)
          .Groups(2)
          .Dilation(1, 2)
          .Padding(1, 1, 2, 2),
      Conv("im2col_17x9_k3x3_dilation2x1", 3, 5, 17, 9, 3, 3).Dilation(2, 1).Padding(2, 2, 1, 1),
      Conv("im2col_13x17_k1x1_padded_elu", 5, 7, 13, 17, 1, 1)
          .Padding(1)
          .Activate(Kind::kElu, 1.0f),
      Conv("im2col_17x9_k3x3_stride1x3_asymmetric_pad", 3, 5, 17, 9, 3, 3)
          .Stride(1, 3)
          .Padding(0, 2, 1, 0),
      // K = 17 * 49 = 833 and 40 output rows: 33320 floats per output column, so a block holds
      // 31 of the 40 columns and the output takes two blocks, the second one partial.
      Conv("im2col_two_column_blocks_40x40_k7x7_relu6", 17, 5, 40, 40, 7, 7)
          .Padding(3)
          .Activate(Kind::kRelu6),

      // Pointwise (1x1, stride 1, no padding).
      Conv("pointwise_5x7_3to5_nobias", 3, 5, 5, 7, 1, 1).NoBias(),
      Conv("pointwise_input_1x1_17to33", 17, 33, 1, 1, 1, 1),
      // One block of pixels and 33 channels: the tasks split the weight panels.
      Conv("pointwise_13x17_17to33_silu", 17, 33, 13, 17, 1, 1).Activate(Kind::kSilu),
      // 1147 pixels: several blocks of pixels, the last one partial.
      Conv("pointwise_31x37_33to17_relu", 33, 17, 31, 37, 1, 1).Activate(Kind::kRelu),
      Conv("pointwise_13x17_groups3_tanh", 9, 15, 13, 17, 1, 1).Groups(3).Activate(Kind::kTanh),
      // 300 input channels: several depth slices in the GEMM.
      Conv("pointwise_5x7_deep_300to7", 300, 7, 5, 7, 1, 1),

      // Depthwise (groups == in_channels), multiplier 1 and 2.
      Conv("depthwise_13x17_k3x3_relu", 5, 5, 13, 17, 3, 3)
          .Groups(5)
          .Padding(1)
          .Activate(Kind::kRelu),
      Conv("depthwise_17x9_k3x3_multiplier2_stride2", 3, 6, 17, 9, 3, 3)
          .Groups(3)
          .Stride(2, 2)
          .Padding(1),
      Conv("depthwise_13x17_k7x7_dilation2_asymmetric_pad", 17, 17, 13, 17, 7, 7)
          .Groups(17)
          .Dilation(2, 2)
          .Padding(6, 5, 4, 6),
      Conv("depthwise_5x7_k1x5_multiplier2_stride3_dilation1x2_nobias", 33, 66, 5, 7, 1, 5)
          .Groups(33)
          .Stride(3, 3)
          .Dilation(1, 2)
          .Padding(0, 0, 4, 4)
          .NoBias(),
      Conv("depthwise_17x9_k5x1_dilation2x1_hardsigmoid", 5, 5, 17, 9, 5, 1)
          .Groups(5)
          .Dilation(2, 1)
          .Padding(4, 4, 0, 0)
          .Activate(Kind::kHardsigmoid),
      Conv("depthwise_input_1x1_k3x3", 3, 3, 1, 1, 3, 3).Groups(3).Padding(1),
      Conv("depthwise_13x17_k7x7_stride2", 17, 17, 13, 17, 7, 7).Groups(17).Stride(2, 2).Padding(3),
      Conv("depthwise_13x17_k1x1_multiplier2", 5, 10, 13, 17, 1, 1).Groups(5),

      // Winograd, shared path (few tiles). Output sizes that are not multiples of 4 leave partial
      // tiles on the bottom and right edges.
      Conv("winograd_shared_13x17_17to33_pad1_silu", 17, 33, 13, 17, 3, 3)
          .Padding(1)
          .Activate(Kind::kSilu),
      Conv("winograd_shared_13x17_33to17_pad0", 33, 17, 13, 17, 3, 3),
      Conv("winograd_shared_17x9_asymmetric_pad_sigmoid", 5, 3, 17, 9, 3, 3)
          .Padding(1, 2, 0, 1)
          .Activate(Kind::kSigmoid),
      Conv("winograd_shared_input_1x1_pad1_leaky", 3, 5, 1, 1, 3, 3)
          .Padding(1)
          .Activate(Kind::kLeakyRelu, 0.2f),
      Conv("winograd_shared_input_3x3_pad0_single_channel_tanh", 1, 1, 3, 3, 3, 3)
          .Activate(Kind::kTanh),
      Conv("winograd_shared_5x7_pad0_nobias_relu6", 3, 5, 5, 7, 3, 3)
          .NoBias()
          .Activate(Kind::kRelu6),
      // Winograd, private path. One channel in and out: private blocks of 3640 tiles, and 61 * 62
      // = 3782 tiles, so two blocks on 1 or 2 threads, the second starting halfway down a column
      // of tiles. One in, two out: blocks of 2427 tiles, and 50 * 51 = 2550 tiles.
      Conv("winograd_private_243x245_single_channel_pad1_relu", 1, 1, 243, 245, 3, 3)
          .Padding(1)
          .Activate(Kind::kRelu),
      Conv("winograd_private_202x203_1to2_pad0_elu", 1, 2, 202, 203, 3, 3)
          .Activate(Kind::kElu, 0.5f),
      // 17 in, 33 out: private blocks of 145 tiles, and 13 * 14 = 182 tiles.
      Conv("winograd_private_51x53_17to33_pad1_hardswish", 17, 33, 51, 53, 3, 3)
          .Padding(1)
          .NoBias()
          .Activate(Kind::kHardswish),
      // 260 input channels: the 36 GEMMs have two depth slices. Private blocks of
      // max(kPanelRows, 26) tiles, and 6 * 7 = 42 tiles.
      Conv("winograd_private_23x25_260to16_pad1_hardsigmoid", 260, 16, 23, 25, 3, 3)
          .Padding(1)
          .Activate(Kind::kHardsigmoid),
  };
}

// The spec of `geometry` with random weights and bias. Weights are drawn from
// [-1/sqrt(fan_in), 1/sqrt(fan_in)] (PyTorch's default range) so that outputs are of order 1
// whatever the number of taps, and a fixed tolerance means the same for every geometry.
ConvolutionSpec MakeSpec(const Geometry& geometry, std::mt19937* generator) {
  ConvolutionSpec spec;
  spec.in_channels = geometry.in_channels;
  spec.out_channels = geometry.out_channels;
  spec.groups = geometry.groups;
  spec.window = geometry.window;
  spec.input_h = geometry.input_h;
  spec.input_w = geometry.input_w;
  spec.output_h = geometry.window.OutputHeight(geometry.input_h);
  spec.output_w = geometry.window.OutputWidth(geometry.input_w);
  const int fan_in =
      geometry.in_channels / geometry.groups * geometry.window.kernel_h * geometry.window.kernel_w;
  const float bound = 1.0f / std::sqrt(static_cast<float>(fan_in));
  spec.weights =
      RandomValues(static_cast<size_t>(geometry.out_channels) * fan_in, generator, -bound, bound);
  if (geometry.bias) spec.bias = RandomValues(geometry.out_channels, generator, -0.5f, 0.5f);
  spec.activation = geometry.activation;
  return spec;
}

// Runs `algorithm` on `input` and returns the output in fcube order. The output starts as NaN,
// so an element the algorithm forgets to write cannot match the reference.
std::vector<float> RunAlgorithm(ConvolutionAlgorithm* algorithm, const ConvolutionSpec& spec,
                                const Tensor& input) {
  Tensor output({static_cast<uint32_t>(spec.out_channels), static_cast<uint32_t>(spec.output_h),
                 static_cast<uint32_t>(spec.output_w)});
  output.Fill(std::numeric_limits<float>::quiet_NaN());
  algorithm->Run(input, &output);
  return std::vector<float>(output.data(), output.data() + output.size());
}

// Compares every algorithm that applies to `geometry` with the reference, on `threads` threads.
void ExpectAlgorithmsMatchReference(const Geometry& geometry, int threads) {
  const ScopedThreadCount thread_count(threads);
  std::mt19937 generator(20240601);
  const ConvolutionSpec spec = MakeSpec(geometry, &generator);
  ASSERT_GT(spec.output_h, 0);
  ASSERT_GT(spec.output_w, 0);
  Tensor input({static_cast<uint32_t>(spec.in_channels), static_cast<uint32_t>(spec.input_h),
                static_cast<uint32_t>(spec.input_w)});
  const std::vector<float> values = RandomValues(input.size(), &generator);
  std::copy(values.begin(), values.end(), input.data());

  const std::vector<float> expected =
      RunAlgorithm(MakeReferenceConvolution(spec).get(), spec, input);

  std::vector<std::unique_ptr<ConvolutionAlgorithm>> algorithms;
  algorithms.push_back(MakeIm2colConvolution(spec));
  if (PointwiseApplies(spec)) algorithms.push_back(MakePointwiseConvolution(spec));
  if (DepthwiseApplies(spec)) algorithms.push_back(MakeDepthwiseConvolution(spec));
  if (WinogradApplies(spec)) {
    algorithms.push_back(MakeWinogradConvolution(spec, 4));
    algorithms.push_back(MakeWinogradConvolution(spec, 2));
  }
  algorithms.push_back(ChooseConvolutionAlgorithm(spec));
  for (const auto& algorithm : algorithms) {
    const std::string name = algorithm->name();
    const float tolerance = name.rfind("winograd", 0) == 0 ? kWinogradTolerance : kTolerance;
    // Twice: a second run must not be disturbed by what the first left in the workspaces.
    for (int run = 1; run <= 2; ++run) {
      ExpectClose(RunAlgorithm(algorithm.get(), spec, input), expected, tolerance, tolerance,
                  name + " (run " + std::to_string(run) + ")");
    }
  }
}

class ConvolutionAlgorithmTest : public testing::TestWithParam<std::tuple<Geometry, int>> {};

TEST_P(ConvolutionAlgorithmTest, FastAlgorithmsMatchReference) {
  ExpectAlgorithmsMatchReference(std::get<0>(GetParam()), std::get<1>(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(ConvolutionAlgorithm, ConvolutionAlgorithmTest,
                         testing::Combine(testing::ValuesIn(Geometries()), testing::Values(1, 2)),
                         [](const testing::TestParamInfo<std::tuple<Geometry, int>>& info) {
                           return std::get<0>(info.param).name + "_threads" +
                                  std::to_string(std::get<1>(info.param));
                         });

// Winograd's shared path cuts the tiles into several shared blocks only when the tiles are too
// many for one shared block yet too few for private blocks on every thread, which takes more
// than 2 threads: 16 channels in and out give shared blocks of about 900 tiles and private
// blocks of 227, so 1024 tiles stay on the shared path with 16 threads (fewer than 16 * 227 / 2)
// and need two shared blocks. The threads outnumber the cores, which only makes them take turns.
TEST(ConvolutionAlgorithmWinograd, SharedPathWithSeveralBlocks) {
  ExpectAlgorithmsMatchReference(
      Conv("winograd_shared_blocks_128x128_16to16", 16, 16, 128, 128, 3, 3).Padding(1), 16);
}

// The message a factory throws for `geometry`, or an empty string if it accepts it.
std::string FactoryError(
    const std::function<std::unique_ptr<ConvolutionAlgorithm>(const ConvolutionSpec&)>& factory,
    const Geometry& geometry) {
  std::mt19937 generator(7);
  try {
    factory(MakeSpec(geometry, &generator));
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(ConvolutionAlgorithmFactory, WinogradRejectsWhatIsNotA3x3Stride1Convolution) {
  const std::string message = "Winograd needs a 3x3, stride-1 convolution";
  const Geometry conv3x3 = Conv("conv", 4, 4, 9, 9, 3, 3);
  for (int tile_size : {4, 2}) {
    const auto winograd = [tile_size](const ConvolutionSpec& spec) {
      return MakeWinogradConvolution(spec, tile_size);
    };
    EXPECT_THAT(FactoryError(winograd, Geometry(conv3x3).Stride(2, 2)), HasSubstr(message));
    EXPECT_THAT(FactoryError(winograd, Geometry(conv3x3).Stride(1, 2)), HasSubstr(message));
    EXPECT_THAT(FactoryError(winograd, Geometry(conv3x3).Dilation(2, 2)), HasSubstr(message));
    EXPECT_THAT(FactoryError(winograd, Geometry(conv3x3).Groups(2)), HasSubstr(message));
    EXPECT_THAT(FactoryError(winograd, Conv("conv", 4, 4, 9, 9, 5, 5)), HasSubstr(message));
    EXPECT_THAT(FactoryError(winograd, Conv("conv", 4, 4, 9, 9, 1, 3)), HasSubstr(message));
    EXPECT_EQ(FactoryError(winograd, conv3x3), "");
  }
  const auto winograd_3x3 = [](const ConvolutionSpec& spec) {
    return MakeWinogradConvolution(spec, 3);
  };
  EXPECT_THAT(FactoryError(winograd_3x3, conv3x3), HasSubstr("implemented for m = 2 and 4, not 3"));
}

TEST(ConvolutionAlgorithmFactory, PointwiseRejectsWhatIsNotA1x1Stride1UnpaddedConvolution) {
  const std::string message = "pointwise convolution needs 1x1, stride 1, no padding";
  const Geometry conv1x1 = Conv("conv", 4, 4, 9, 9, 1, 1);
  EXPECT_THAT(FactoryError(MakePointwiseConvolution, Conv("conv", 4, 4, 9, 9, 3, 3)),
              HasSubstr(message));
  EXPECT_THAT(FactoryError(MakePointwiseConvolution, Geometry(conv1x1).Stride(2, 2)),
              HasSubstr(message));
  EXPECT_THAT(FactoryError(MakePointwiseConvolution, Geometry(conv1x1).Padding(0, 1, 0, 0)),
              HasSubstr(message));
  EXPECT_EQ(FactoryError(MakePointwiseConvolution, conv1x1), "");
}

TEST(ConvolutionAlgorithmFactory, DepthwiseRejectsGroupsOtherThanTheInputChannels) {
  const std::string message = "depthwise convolution needs groups == in_channels";
  EXPECT_THAT(FactoryError(MakeDepthwiseConvolution, Conv("conv", 4, 4, 9, 9, 3, 3)),
              HasSubstr(message));
  EXPECT_THAT(FactoryError(MakeDepthwiseConvolution, Conv("conv", 6, 6, 9, 9, 3, 3).Groups(3)),
              HasSubstr(message));
  // Each input channel must feed the same number of output channels.
  EXPECT_THAT(FactoryError(MakeDepthwiseConvolution, Conv("conv", 4, 6, 9, 9, 3, 3).Groups(4)),
              HasSubstr(message));
  EXPECT_EQ(FactoryError(MakeDepthwiseConvolution, Conv("conv", 4, 8, 9, 9, 3, 3).Groups(4)), "");
}

}  // namespace
}  // namespace lumen
