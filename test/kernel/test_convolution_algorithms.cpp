// The reference convolution against PyTorch's cases, then every fast convolution algorithm
// against the reference one, on random data.
//
// Each geometry below runs the reference convolution (the definition, loop by loop) and every
// algorithm that can handle the geometry (im2col always; pointwise, depthwise and Winograd where
// their Applies function says so) on the same random input, weights and bias, with 1, 2 and 3
// threads, and compares the outputs elementwise. The geometries are picked to reach the separate
// code paths inside the fast algorithms (the comment above each group says which), because a path
// that no geometry reaches is untested; random geometries and input sizes follow.
//
// An algorithm is built once for its weights and then planned for each input size, so the tests
// also run one algorithm object at several sizes, from several threads at once, and check that a
// plan reserves every scratch buffer its runs use.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "base/bfloat16.hpp"
#include "io/golden_case.hpp"
#include "io/raw_file.hpp"
#include "kernel/convolution_algorithm.hpp"
#include "layer/layer_config.hpp"
#include "layer/window.hpp"
#include "lumen/error.hpp"
#include "math/packed_gemm.hpp"
#include "pnnx/pnnx_reader.hpp"
#include "support/case_runner.hpp"
#include "support/kernel_testing.hpp"
#include "support/source_directory.hpp"

namespace lumen {
namespace {

using test_support::ExpectAgree;
using test_support::RandomValues;
using test_support::TestContext;
using ::testing::HasSubstr;
using Kind = Activation::Kind;
using Algorithm = ConvolutionAlgorithmKind;

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

constexpr Algorithm kFastAlgorithms[] = {Algorithm::kIm2col,      Algorithm::kPointwise,
                                         Algorithm::kDepthwise,   Algorithm::kWinograd4x4,
                                         Algorithm::kWinograd2x2, Algorithm::kSmallDepth};

// One convolution to test, built by Conv() and the methods below so that each case of the table
// reads as a sentence.
struct Geometry {
  std::string name;  // a valid test-name identifier
  int in_channels = 1, out_channels = 1, groups = 1;
  int input_h = 1, input_w = 1;
  int batch = 1;
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
  // Runs `samples` samples one after another with the same plan, as a layer's Forward does.
  Geometry& Batch(int samples) {
    batch = samples;
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

std::vector<Geometry> Geometries() {
  return {
      // im2col on tiny maps (fewer pixels than one micro-kernel panel).
      Conv("im2col_input_1x1_k3x3_pad1", 3, 5, 1, 1, 3, 3).Padding(1),
      Conv("im2col_5x7_k3x3_stride2_relu_batch3", 3, 17, 5, 7, 3, 3)
          .Stride(2, 2)
          .Padding(1)
          .Activate(Kind::kRelu)
          .Batch(3),
      Conv("im2col_17x9_k7x7_stride3_nobias", 3, 33, 17, 9, 7, 7).Stride(3, 3).Padding(3).NoBias(),
      // 70 output channels: several row panels; K = 33 * 9 = 297: two depth slices of the GEMM.
      Conv("im2col_tiny_map_deep_k3x3_sigmoid", 33, 70, 5, 7, 3, 3)
          .Padding(1)
          .Activate(Kind::kSigmoid),
      Conv("im2col_single_channel_kernel_7x7_over_5x7", 1, 1, 5, 7, 7, 7).Padding(3),
      // Few output channels at any depth, small-depth's other use: K = 16 * 81 = 1296 taps (an
      // image-to-image net's last layer), and groups of 32 channels with a stride.
      Conv("small_depth_few_outputs_k9x9_deep_tanh", 16, 3, 21, 18, 9, 9)
          .Padding(4)
          .Activate(Kind::kTanh),
      Conv("small_depth_few_outputs_k3x3_stride2_groups2", 64, 6, 19, 22, 3, 3)
          .Stride(2, 2)
          .Padding(1)
          .Groups(2),
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
      // Enough blocks of output columns (K = 576: 7 columns of 65 rows per block, 11 blocks) for
      // each thread to take whole blocks (private blocks), and with groups (7 blocks x 2 groups).
      Conv("im2col_private_blocks_k3x3_stride2_silu", 64, 8, 130, 150, 3, 3)
          .Stride(2, 2)
          .Padding(1)
          .Activate(Kind::kSilu),
      Conv("im2col_private_blocks_groups2_k3x2", 64, 8, 66, 80, 3, 2).Groups(2).Padding(1, 1, 0, 1),
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
      Conv("im2col_two_column_blocks_40x40_k7x7_relu6_batch2", 17, 5, 40, 40, 7, 7)
          .Padding(3)
          .Activate(Kind::kRelu6)
          .Batch(2),

      // Pointwise (1x1, stride 1, no padding).
      Conv("pointwise_5x7_3to5_nobias", 3, 5, 5, 7, 1, 1).NoBias(),
      Conv("pointwise_input_1x1_17to33", 17, 33, 1, 1, 1, 1),
      // One pixel, three groups of 65 output channels: the 64-channel tasks cross groups.
      Conv("pointwise_input_1x1_groups3_129to195_hardsigmoid", 129, 195, 1, 1, 1, 1)
          .Groups(3)
          .Activate(Kind::kHardsigmoid),
      // One block of pixels and 33 channels: the tasks split the weight panels.
      Conv("pointwise_13x17_17to33_silu", 17, 33, 13, 17, 1, 1).Activate(Kind::kSilu),
      // 1147 pixels: several blocks of pixels, the last one partial.
      Conv("pointwise_31x37_33to17_relu_batch2", 33, 17, 31, 37, 1, 1)
          .Activate(Kind::kRelu)
          .Batch(2),
      Conv("pointwise_13x17_groups3_tanh", 9, 15, 13, 17, 1, 1).Groups(3).Activate(Kind::kTanh),
      // 300 input channels: several depth slices in the GEMM.
      Conv("pointwise_5x7_deep_300to7", 300, 7, 5, 7, 1, 1),

      // Depthwise (groups == in_channels), multiplier 1 and 2.
      Conv("depthwise_13x17_k3x3_relu", 5, 5, 13, 17, 3, 3)
          .Groups(5)
          .Padding(1)
          .Activate(Kind::kRelu),
      Conv("depthwise_17x9_k3x3_multiplier2_stride2_batch2", 3, 6, 17, 9, 3, 3)
          .Groups(3)
          .Stride(2, 2)
          .Padding(1)
          .Batch(2),
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
      // Row tiles (more than 16 output rows): 27 rows are a full band of 16 and one of 11 (a
      // partial 16-lane vector with AVX-512, two 8-lane ones with AVX2), 21 columns two tiles of
      // 8 and one of 5 (AVX-512) or three of 6 and one of 3 (AVX2); 30 rows of a stride-2 layer
      // 16 and 14.
      Conv("depthwise_27x21_k3x3_relu6", 7, 7, 27, 21, 3, 3)
          .Groups(7)
          .Padding(1)
          .Activate(Kind::kRelu6),
      Conv("depthwise_60x19_k5x5_stride2_multiplier2", 4, 8, 60, 19, 5, 5)
          .Groups(4)
          .Stride(2, 2)
          .Padding(2),
      // 13 columns are two tiles of 6 and one of 1 (AVX2), one of 8 and one of 5 (AVX-512); 20
      // rows a full band of 16 and a short one.
      Conv("depthwise_40x13_k3x3_stride2x1_silu", 13, 13, 40, 13, 3, 3)
          .Groups(13)
          .Stride(2, 1)
          .Padding(1)
          .Activate(Kind::kSilu),
      // Stride 2 on row tiles with an even and with no top padding: the even input rows then go
      // to the first phase (an odd padding sends them to the second).
      Conv("depthwise_45x7_k5x5_stride2_pad_top2", 4, 4, 45, 7, 5, 5)
          .Groups(4)
          .Stride(2, 2)
          .Padding(2, 0, 2, 1),
      Conv("depthwise_38x5_k3x3_stride2x1_no_top_pad", 3, 3, 38, 5, 3, 3)
          .Groups(3)
          .Stride(2, 1)
          .Padding(0, 1, 1, 1),
      // A kernel size without unrolled taps, on row tiles; 33 rows end in a band of 1.
      Conv("depthwise_33x29_k9x9_pad4", 6, 6, 33, 29, 9, 9).Groups(6).Padding(4),
      // 17 rows: just past the eight-channel path, a band of 16 and one of 1.
      Conv("depthwise_17x7_k5x5_relu6", 3, 3, 17, 7, 5, 5)
          .Groups(3)
          .Padding(2)
          .Activate(Kind::kRelu6),
      // Channels side by side (at most 16 output rows), 8 with AVX2 and 16 with AVX-512: 26
      // output channels are three full groups and one of 2 lanes, or one of 16 and one of 10,
      // each reading input channel o / 2.
      Conv("depthwise_16x11_k5x5_multiplier2_13to26_hardswish", 13, 26, 16, 11, 5, 5)
          .Groups(13)
          .Padding(2)
          .Activate(Kind::kHardswish),
      // Whole groups on both (40 = five of 8 or two of 16 and one of 8), on 10 and 14 rows (14x14
      // maps: six columns of 14 rows, so transposed blocks of 8 rows end in one of 6) and 7.
      Conv("depthwise_10x10_k3x3_40_relu6", 40, 40, 10, 10, 3, 3)
          .Groups(40)
          .Padding(1)
          .Activate(Kind::kRelu6),
      Conv("depthwise_14x14_k3x3_32_batch2", 32, 32, 14, 14, 3, 3).Groups(32).Padding(1).Batch(2),
      Conv("depthwise_14x7_k5x5_stride2_48", 48, 48, 14, 7, 5, 5)
          .Groups(48)
          .Stride(2, 2)
          .Padding(2),
      Conv("depthwise_9x10_k4x4_stride2_dilation2_asymmetric_pad", 9, 9, 9, 10, 4, 4)
          .Groups(9)
          .Stride(2, 2)
          .Dilation(2, 2)
          .Padding(3, 2, 1, 3),
      Conv("depthwise_6x6_k7x7_batch2", 11, 11, 6, 6, 7, 7).Groups(11).Padding(3).Batch(2),
      // Wide maps, which on two and three threads are split by columns (a share of the columns
      // per thread, every channel): shares that start and end inside a tile of columns, at the
      // padding, with stride 2 and dilation, and an activation applied after the sums.
      Conv("depthwise_18x75_k3x3_column_shares_hardswish", 3, 3, 18, 75, 3, 3)
          .Groups(3)
          .Padding(1)
          .Activate(Kind::kHardswish),
      Conv("depthwise_40x81_k5x5_stride2_multiplier2_column_shares", 2, 4, 40, 81, 5, 5)
          .Groups(2)
          .Stride(2, 2)
          .Padding(2),
      Conv("depthwise_20x64_k3x3_dilation2_column_shares_batch2", 4, 4, 20, 64, 3, 3)
          .Groups(4)
          .Padding(2)
          .Dilation(2, 2)
          .Batch(2),
      Conv("depthwise_17x49_k3x3_no_padding_column_shares_relu6", 5, 5, 17, 49, 3, 3)
          .Groups(5)
          .Activate(Kind::kRelu6),
      // A padded plane too large for cache-line-aligned columns (RowPathPlane keeps them
      // unaligned past 32 KB); the smaller maps above take aligned ones.
      Conv("depthwise_100x90_k3x3_unaligned_plane", 2, 2, 100, 90, 3, 3).Groups(2).Padding(1),

      // Winograd, shared path (few tiles). Output sizes that are not multiples of 4 leave partial
      // tiles on the bottom and right edges.
      Conv("winograd_shared_13x17_17to33_pad1_silu_batch2", 17, 33, 13, 17, 3, 3)
          .Padding(1)
          .Activate(Kind::kSilu)
          .Batch(2),
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
      // Winograd, private path (on 3 threads some of these take the shared path). One channel in
      // and out: private blocks of 3640 tiles, and 61 * 62 = 3782 tiles, so two blocks on 1 or 2
      // threads, the second starting halfway down a column of tiles. One in, two out: blocks of
      // 2427 tiles, and 50 * 51 = 2550 tiles.
      Conv("winograd_private_243x245_single_channel_pad1_relu", 1, 1, 243, 245, 3, 3)
          .Padding(1)
          .Activate(Kind::kRelu),
      Conv("winograd_private_202x203_1to2_pad0_elu", 1, 2, 202, 203, 3, 3)
          .Activate(Kind::kElu, 0.5f),
      // 17 in, 33 out: private blocks of 145 tiles, and 13 * 14 = 182 tiles.
      Conv("winograd_private_51x53_17to33_pad1_hardswish_batch3", 17, 33, 51, 53, 3, 3)
          .Padding(1)
          .NoBias()
          .Activate(Kind::kHardswish)
          .Batch(3),
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
  const int fan_in =
      geometry.in_channels / geometry.groups * geometry.window.kernel_h * geometry.window.kernel_w;
  const float bound = 1.0f / std::sqrt(static_cast<float>(fan_in));
  spec.weights =
      RandomValues(static_cast<size_t>(geometry.out_channels) * fan_in, generator, -bound, bound);
  if (geometry.bias) spec.bias = RandomValues(geometry.out_channels, generator, -0.5f, 0.5f);
  return spec;
}

// Whether `algorithm` can compute `spec` (the factory would throw otherwise).
bool Applies(Algorithm algorithm, const ConvolutionSpec& spec) {
  switch (algorithm) {
    case Algorithm::kPointwise:
      return PointwiseApplies(spec);
    case Algorithm::kDepthwise:
      return DepthwiseApplies(spec);
    case Algorithm::kWinograd4x4:
    case Algorithm::kWinograd2x2:
      return WinogradApplies(spec);
    default:
      return true;
  }
}

// The tolerance for comparing `algorithm` with the reference.
float ToleranceFor(Algorithm algorithm) {
  return algorithm == Algorithm::kWinograd4x4 || algorithm == Algorithm::kWinograd2x2
             ? kWinogradTolerance
             : kTolerance;
}

// `batch` samples of `shape` computed by `algorithm` on `threads` threads, the samples one after
// another in one vector as a layer's Forward lays them out. Runs twice with the same plan (a run
// must not be disturbed by what the one before left in the scratch) and EXPECTs both runs to give
// the same output, and the runs not to grow the scratch the plan reserved. The output starts as
// NaN, so an element the algorithm forgets to write cannot match the reference.
std::vector<float> RunAlgorithm(const ConvolutionAlgorithm& algorithm,
                                const ConvolutionShape& shape, const Activation& activation,
                                const std::vector<float>& input, int batch, int threads,
                                int out_channels) {
  TestContext context(threads);
  const ConvolutionPlan plan = algorithm.Plan(shape, activation, threads);
  plan.ReserveScratch(context.compute().workspace);
  const size_t reserved = context.compute().workspace->bytes();
  const size_t input_floats = input.size() / batch;
  const size_t output_floats = static_cast<size_t>(out_channels) * shape.output_h * shape.output_w;
  std::vector<float> first;
  std::vector<float> output;
  for (int run = 1; run <= 2; ++run) {
    output.assign(output_floats * batch, std::numeric_limits<float>::quiet_NaN());
    for (int sample = 0; sample < batch; ++sample) {
      algorithm.Run(plan, input.data() + sample * input_floats,
                    output.data() + sample * output_floats, context.compute());
    }
    if (run == 1) first = output;
  }
  ExpectAgree(output, "the second run", first, "the first", 0.0f, 0.0f, algorithm.name());
  EXPECT_EQ(context.compute().workspace->bytes(), reserved)
      << algorithm.name() << ": Run asked for more scratch than Plan reserved";
  return output;
}

// Compares every algorithm that applies to `geometry` with the reference, on `threads` threads.
void ExpectAlgorithmsMatchReference(const Geometry& geometry, int threads) {
  std::mt19937 generator(20240601);
  const ConvolutionSpec spec = MakeSpec(geometry, &generator);
  const ConvolutionShape shape =
      MakeConvolutionShape(spec.window, geometry.input_h, geometry.input_w);
  ASSERT_GT(shape.output_h, 0);
  ASSERT_GT(shape.output_w, 0);
  const std::vector<float> input = RandomValues(
      static_cast<size_t>(geometry.batch) * spec.in_channels * geometry.input_h * geometry.input_w,
      &generator);
  const std::vector<float> expected =
      RunAlgorithm(*MakeConvolutionAlgorithm(Algorithm::kReference, spec), shape,
                   geometry.activation, input, geometry.batch, 1, spec.out_channels);
  const Algorithm chosen = ChooseConvolutionAlgorithm(spec, shape);
  bool chosen_tested = false;
  for (Algorithm kind : kFastAlgorithms) {
    if (!Applies(kind, spec)) continue;
    chosen_tested = chosen_tested || kind == chosen;
    const std::unique_ptr<ConvolutionAlgorithm> algorithm = MakeConvolutionAlgorithm(kind, spec);
    ASSERT_EQ(algorithm->kind(), kind);
    const float tolerance = ToleranceFor(kind);
    ExpectAgree(RunAlgorithm(*algorithm, shape, geometry.activation, input, geometry.batch, threads,
                             spec.out_channels),
                algorithm->name(), expected, "your reference", tolerance, tolerance);
  }
  EXPECT_TRUE(chosen_tested) << "the chosen " << ConvolutionAlgorithmName(chosen)
                             << " does not apply";
}

// The folders of the nn.Conv2d cases of test/data/layers (PyTorch's outputs, written by
// scripts/make_layer_cases.py).
std::vector<std::string> Conv2dCaseFolders() {
  std::vector<std::string> folders;
  const std::string layers = test_support::SourceDirectory() + "/test/data/layers";
  for (const auto& entry : std::filesystem::directory_iterator(layers)) {
    if (entry.path().filename().string().rfind("conv_", 0) == 0) {
      folders.push_back(entry.path().string());
    }
  }
  std::sort(folders.begin(), folders.end());
  return folders;
}

// Every fast algorithm is checked against the reference, so the reference alone is checked
// against PyTorch first: on each zero-padded nn.Conv2d case it computes PyTorch's output from the
// case's own weights (other padding modes pad the input first and then run the same convolution).
TEST(ConvolutionReference, MatchesPyTorchCases) {
  int checked = 0;
  for (const std::string& folder : Conv2dCaseFolders()) {
    const GoldenCase golden = ReadGoldenCase(folder);
    const Graph graph = ReadPnnxGraph(golden.param_path, golden.bin_path);
    const auto conv = std::find_if(graph.nodes.begin(), graph.nodes.end(),
                                   [](const Node& node) { return node.type == "nn.Conv2d"; });
    ASSERT_NE(conv, graph.nodes.end()) << golden.name;
    const LayerConfig config(*conv);
    if (config.StringParam("padding_mode", "zeros") != "zeros") continue;
    ConvolutionSpec spec;
    spec.in_channels = config.IntParam("in_channels");
    spec.out_channels = config.IntParam("out_channels");
    spec.groups = config.IntParam("groups", 1);
    spec.window = ReadWindow2d(config, false);
    spec.weights = config.AttributeFloats("weight");
    if (config.BoolParam("bias", false)) spec.bias = config.AttributeFloats("bias");
    // (N, C, H, W), or (C, H, W) for one sample: the samples follow each other in memory.
    const Shape& input_shape = golden.inputs[0].shape;
    const Tensor input = ReadTensorFile(golden.inputs[0].path, input_shape);
    const size_t rank = input_shape.size();
    const ConvolutionShape shape =
        MakeConvolutionShape(spec.window, static_cast<int>(input_shape[rank - 2]),
                             static_cast<int>(input_shape[rank - 1]));
    Tensor output(golden.outputs[0].shape);
    const size_t samples = rank == 4 ? input_shape[0] : 1;
    const size_t input_floats = input.size() / samples;
    const size_t output_floats = output.size() / samples;
    ASSERT_EQ(output_floats,
              static_cast<size_t>(spec.out_channels) * shape.output_h * shape.output_w)
        << golden.name;
    const auto reference = MakeConvolutionAlgorithm(Algorithm::kReference, spec);
    const ConvolutionPlan plan = reference->Plan(shape, Activation(), 1);
    TestContext context(1);
    for (size_t sample = 0; sample < samples; ++sample) {
      reference->Run(plan, input.data() + sample * input_floats,
                     output.data() + sample * output_floats, context.compute());
    }
    ExpectAgree(output.ToRowMajor(), "your reference convolution",
                ReadFloatFile(golden.outputs[0].path, output.size()), "PyTorch",
                golden.absolute_tolerance, golden.relative_tolerance,
                golden.name + " (" + golden.note + ")");
    ++checked;
  }
  EXPECT_GE(checked, 20) << "zero-padded nn.Conv2d cases found in test/data/layers";
}

class ConvolutionAlgorithmTest : public testing::TestWithParam<std::tuple<Geometry, int>> {};

TEST_P(ConvolutionAlgorithmTest, FastAlgorithmsMatchReference) {
  ExpectAlgorithmsMatchReference(std::get<0>(GetParam()), std::get<1>(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(ConvolutionAlgorithm, ConvolutionAlgorithmTest,
                         testing::Combine(testing::ValuesIn(Geometries()),
                                          testing::Values(1, 2, 3)),
                         [](const testing::TestParamInfo<std::tuple<Geometry, int>>& info) {
                           return std::get<0>(info.param).name + "_threads" +
                                  std::to_string(std::get<1>(info.param));
                         });

// A random input of `geometry`: its batch of input_h x input_w planes.
std::vector<float> GeometryInput(const Geometry& geometry, std::mt19937* generator) {
  return RandomValues(static_cast<size_t>(geometry.batch) * geometry.in_channels *
                          geometry.input_h * geometry.input_w,
                      generator);
}

// With bf16 products (a `--to bf16` file on a CPU with vdpbf16ps) im2col computes what the
// reference computes on the bf16-rounded weights and input: bf16 x bf16 products are exact in fp32,
// so only the order of the sums differs. Run here on the generic bf16 kernel where the CPU lacks
// AVX512-BF16; a 1x1 stride-1 layer multiplies its input planes in place.
TEST(ConvolutionAlgorithmBf16, Im2colMatchesTheReferenceOnRoundedOperands) {
  const auto rounded = [](std::vector<float> values) {
    for (float& value : values) value = BFloat16ToFloat(FloatToBFloat16(value));
    return values;
  };
  std::vector<Geometry> geometries = Geometries();
  // A 1x1 layer in many blocks of output columns (4 columns each on this deep input): the blocks
  // multiply their share of the input planes in place.
  geometries.push_back(Conv("pointwise_column_blocks_512to8", 512, 8, 128, 40, 1, 1));
  int checked = 0;
  for (const Geometry& geometry : geometries) {
    std::mt19937 generator(20240601);
    ConvolutionSpec spec = MakeSpec(geometry, &generator);
    if (DepthwiseApplies(spec)) continue;  // stays fp32
    const ConvolutionShape shape =
        MakeConvolutionShape(spec.window, geometry.input_h, geometry.input_w);
    const std::vector<float> input = GeometryInput(geometry, &generator);
    ConvolutionSpec rounded_spec = spec;
    rounded_spec.weights = rounded(spec.weights);
    const std::vector<float> expected =
        RunAlgorithm(*MakeConvolutionAlgorithm(Algorithm::kReference, rounded_spec), shape,
                     geometry.activation, rounded(input), geometry.batch, 1, spec.out_channels);
    spec.bf16_products = true;
    const std::unique_ptr<ConvolutionAlgorithm> algorithm =
        MakeConvolutionAlgorithm(Algorithm::kIm2col, spec);
    for (const int threads : {1, 2}) {
      ExpectAgree(RunAlgorithm(*algorithm, shape, geometry.activation, input, geometry.batch,
                               threads, spec.out_channels),
                  "bf16 im2col", expected, "the reference on bf16 operands", kTolerance, kTolerance,
                  geometry.name + " on " + std::to_string(threads) + " threads");
    }
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

// With bf16 products F(2x2) rounds its transformed tiles and weights (U and V) to bf16, not the
// input: against the fp32 reference its error is bf16's on each of the 16 products per channel,
// measured below 6e-3 on these outputs of order 1 (bf16 im2col: 3e-3). F(4x4) stays fp32: its
// transforms' larger coefficients made bf16's error 0.1 there. 2e-2 leaves a margin and still
// catches a misplaced tile or position, which is off by 0.1 or more.
TEST(ConvolutionAlgorithmBf16, WinogradMatchesTheReferenceWithinBf16Rounding) {
  constexpr float kBf16Winograd = 2e-2f;
  int checked = 0;
  for (const Geometry& geometry : Geometries()) {
    std::mt19937 generator(20240601);
    ConvolutionSpec spec = MakeSpec(geometry, &generator);
    if (!WinogradApplies(spec)) continue;
    const ConvolutionShape shape =
        MakeConvolutionShape(spec.window, geometry.input_h, geometry.input_w);
    const std::vector<float> input = GeometryInput(geometry, &generator);
    const std::vector<float> expected =
        RunAlgorithm(*MakeConvolutionAlgorithm(Algorithm::kReference, spec), shape,
                     geometry.activation, input, geometry.batch, 1, spec.out_channels);
    spec.bf16_products = true;
    for (const Algorithm kind : {Algorithm::kWinograd2x2, Algorithm::kWinograd4x4}) {
      const std::unique_ptr<ConvolutionAlgorithm> algorithm = MakeConvolutionAlgorithm(kind, spec);
      const float tolerance = kind == Algorithm::kWinograd2x2 ? kBf16Winograd : kWinogradTolerance;
      for (const int threads : {1, 3}) {
        ExpectAgree(RunAlgorithm(*algorithm, shape, geometry.activation, input, geometry.batch,
                                 threads, spec.out_channels),
                    std::string("bf16-products ") + algorithm->name(), expected,
                    "the fp32 reference", tolerance, tolerance,
                    geometry.name + " on " + std::to_string(threads) + " threads");
      }
    }
    ++checked;
  }
  EXPECT_GE(checked, 5);
}

// bf16 products leave depthwise layers (no GEMM), the Winograd choice (F(2x2) multiplies in bf16,
// F(4x4) in fp32) and layers of at most 8 input channels per group (small-depth, in fp32) as they
// are, and send pointwise and few-output layers to im2col.
TEST(ConvolutionAlgorithmChoice, Bf16ProductsGoToIm2colButDepthwiseWinogradAndSmallDepth) {
  const auto choose = [](const Geometry& geometry) {
    std::mt19937 generator(1);
    ConvolutionSpec spec = MakeSpec(geometry, &generator);
    spec.bf16_products = true;
    const std::vector<Algorithm> candidates = CandidateConvolutionAlgorithms(spec);
    const Algorithm chosen = ChooseConvolutionAlgorithm(
        spec, MakeConvolutionShape(spec.window, geometry.input_h, geometry.input_w));
    EXPECT_NE(std::find(candidates.begin(), candidates.end(), chosen), candidates.end())
        << geometry.name;
    return chosen;
  };
  EXPECT_EQ(choose(Conv("c", 64, 32, 160, 160, 1, 1)), Algorithm::kIm2col);
  EXPECT_EQ(choose(Conv("c", 3, 64, 224, 224, 7, 7).Stride(2, 2).Padding(3)),
            Algorithm::kSmallDepth);
  EXPECT_EQ(choose(Conv("c", 216, 216, 7, 7, 3, 3).Groups(27).Padding(1)), Algorithm::kSmallDepth);
  EXPECT_EQ(choose(Conv("c", 64, 6, 56, 56, 3, 3).Padding(1)), Algorithm::kIm2col);
  EXPECT_EQ(choose(Conv("c", 64, 128, 56, 56, 3, 3).Stride(2, 2).Padding(1)), Algorithm::kIm2col);
  EXPECT_EQ(choose(Conv("c", 64, 64, 56, 56, 3, 3).Padding(1)), Algorithm::kWinograd4x4);
  EXPECT_EQ(choose(Conv("c", 256, 256, 12, 12, 3, 3).Padding(1)), Algorithm::kWinograd2x2);
  EXPECT_EQ(choose(Conv("c", 32, 32, 56, 56, 3, 3).Groups(32).Padding(1)), Algorithm::kDepthwise);
}

// Winograd's shared path cuts the tiles into several shared blocks only when the tiles are too
// many for one shared block yet too few for private blocks on every thread, which takes more
// than 3 threads: 16 channels in and out give shared blocks of about 900 tiles and private
// blocks of 227, so 1024 tiles stay on the shared path with 16 threads (fewer than 16 * 227 / 2)
// and need two shared blocks. The threads outnumber the cores, which only makes them take turns.
TEST(ConvolutionAlgorithmWinograd, SharedPathWithSeveralBlocks) {
  ExpectAlgorithmsMatchReference(
      Conv("winograd_shared_blocks_128x128_16to16", 16, 16, 128, 128, 3, 3).Padding(1), 16);
}

// A random geometry: kernel, stride, dilation, asymmetric padding, groups (sometimes depthwise),
// channels, input size and batch drawn from small ranges, so that odd sizes, maps smaller than
// the kernel's reach and every algorithm turn up. Redrawn until the window fits.
Geometry RandomGeometry(int index, std::mt19937* generator) {
  const auto draw = [generator](int low, int high) {
    return std::uniform_int_distribution<int>(low, high)(*generator);
  };
  for (;;) {
    Geometry geometry;
    geometry.name = "random_" + std::to_string(index);
    const int shape = draw(0, 3);  // 0: 3x3 stride 1 (Winograd), 1: 1x1 (pointwise), 2-3: any
    geometry.window.kernel_h = shape == 0 ? 3 : shape == 1 ? 1 : draw(1, 5);
    geometry.window.kernel_w = shape == 0 ? 3 : shape == 1 ? 1 : draw(1, 5);
    if (shape >= 2) geometry.Stride(draw(1, 3), draw(1, 3)).Dilation(draw(1, 2), draw(1, 2));
    if (shape != 1) geometry.Padding(draw(0, 3), draw(0, 3), draw(0, 3), draw(0, 3));
    const int groups = shape == 0 ? 1 : draw(1, 3);
    geometry.in_channels = groups * draw(1, 6);
    geometry.out_channels = groups * draw(1, 6);
    if (shape >= 2 && draw(0, 2) == 0) {  // depthwise, multiplier 1 or 2
      geometry.in_channels = draw(2, 9);
      geometry.out_channels = geometry.in_channels * draw(1, 2);
      geometry.groups = geometry.in_channels;
    } else {
      geometry.groups = groups;
    }
    if (shape == 0 && draw(0, 1) == 0) {  // enough channels for the layer to choose Winograd
      geometry.in_channels = draw(16, 24);
      geometry.out_channels = draw(16, 24);
    }
    geometry.input_h = draw(1, 29);
    geometry.input_w = draw(1, 29);
    geometry.batch = draw(1, 3);
    geometry.bias = draw(0, 3) != 0;
    geometry.activation = {static_cast<Kind>(draw(0, 3)), 0.1f};  // identity, relu, relu6, leaky
    const Window2d& w = geometry.window;
    if (w.OutputHeight(geometry.input_h) > 0 && w.OutputWidth(geometry.input_w) > 0) {
      return geometry;
    }
  }
}

TEST(ConvolutionAlgorithmRandom, RandomGeometriesMatchReference) {
  std::mt19937 generator(77);
  for (int index = 0; index < 90; ++index) {
    const Geometry geometry = RandomGeometry(index, &generator);
    const int threads = 1 + index % 3;
    SCOPED_TRACE(testing::Message()
                 << geometry.name << ": " << geometry.in_channels << "->" << geometry.out_channels
                 << " groups " << geometry.groups << " kernel " << geometry.window.kernel_h << "x"
                 << geometry.window.kernel_w << " stride " << geometry.window.stride_h << "x"
                 << geometry.window.stride_w << " dilation " << geometry.window.dilation_h << "x"
                 << geometry.window.dilation_w << " input " << geometry.batch << "x"
                 << geometry.input_h << "x" << geometry.input_w << " threads " << threads);
    ExpectAlgorithmsMatchReference(geometry, threads);
  }
}

// Input sizes for the tests that run one algorithm object at many sizes: tiny, odd, and large
// enough for Winograd's private blocks and for several im2col blocks.
const std::vector<std::pair<int, int>> kInputSizes = {{1, 1},   {3, 3},   {5, 7},  {13, 17},
                                                      {28, 28}, {40, 33}, {64, 61}};

// Geometries whose algorithms the size tests build once: Winograd-eligible (all five fast
// algorithms but depthwise apply), strided, pointwise, depthwise.
std::vector<Geometry> SharedGeometries() {
  return {
      Conv("conv3x3_16to16", 16, 16, 1, 1, 3, 3).Padding(1).Activate(Kind::kSilu),
      Conv("conv3x3_stride2_groups2", 6, 8, 1, 1, 3, 3).Groups(2).Stride(2, 2).Padding(1),
      Conv("conv1x1_12to20", 12, 20, 1, 1, 1, 1).Activate(Kind::kRelu),
      Conv("depthwise5x5_multiplier2", 6, 12, 1, 1, 5, 5).Groups(6).Padding(2),
  };
}

// `sample` planes of `shape` with random values, and the reference output for them.
struct Example {
  ConvolutionShape shape;
  std::vector<float> input;
  std::vector<float> expected;
};
Example MakeExample(const ConvolutionSpec& spec, const ConvolutionAlgorithm& reference,
                    const Activation& activation, int input_h, int input_w, int batch,
                    std::mt19937* generator) {
  Example example;
  example.shape = MakeConvolutionShape(spec.window, input_h, input_w);
  example.input =
      RandomValues(static_cast<size_t>(batch) * spec.in_channels * input_h * input_w, generator);
  example.expected = RunAlgorithm(reference, example.shape, activation, example.input, batch, 1,
                                  spec.out_channels);
  return example;
}

// An algorithm holds only what depends on the weights: one object, built once, computes every
// input size, the sizes coming and going in any order.
TEST(ConvolutionAlgorithmSizes, OneAlgorithmComputesEveryInputSize) {
  for (const Geometry& geometry : SharedGeometries()) {
    std::mt19937 generator(5);
    const ConvolutionSpec spec = MakeSpec(geometry, &generator);
    const auto reference = MakeConvolutionAlgorithm(Algorithm::kReference, spec);
    std::vector<std::unique_ptr<ConvolutionAlgorithm>> algorithms;
    for (Algorithm kind : kFastAlgorithms) {
      if (Applies(kind, spec)) algorithms.push_back(MakeConvolutionAlgorithm(kind, spec));
    }
    for (int round = 0; round < 2; ++round) {
      for (const auto& [input_h, input_w] : kInputSizes) {
        const Window2d& w = spec.window;
        if (w.OutputHeight(input_h) < 1 || w.OutputWidth(input_w) < 1) continue;
        const int batch = 1 + round;
        const Example example =
            MakeExample(spec, *reference, geometry.activation, input_h, input_w, batch, &generator);
        for (const auto& algorithm : algorithms) {
          const float tolerance = ToleranceFor(algorithm->kind());
          ExpectAgree(
              RunAlgorithm(*algorithm, example.shape, geometry.activation, example.input, batch, 2,
                           spec.out_channels),
              algorithm->name(), example.expected, "your reference", tolerance, tolerance,
              geometry.name + " at " + std::to_string(input_h) + "x" + std::to_string(input_w));
        }
      }
    }
  }
}

// Sessions share a model's algorithms across threads: several threads, each with its own pool and
// scratch as a session has, run the same algorithm objects at different sizes at the same time.
TEST(ConvolutionAlgorithmSizes, SharedAlgorithmsRunConcurrently) {
  std::mt19937 generator(11);
  const Geometry geometry = SharedGeometries()[0];
  const ConvolutionSpec spec = MakeSpec(geometry, &generator);
  const auto reference = MakeConvolutionAlgorithm(Algorithm::kReference, spec);
  std::vector<std::unique_ptr<ConvolutionAlgorithm>> algorithms;
  for (Algorithm kind : {Algorithm::kIm2col, Algorithm::kWinograd4x4, Algorithm::kWinograd2x2}) {
    algorithms.push_back(MakeConvolutionAlgorithm(kind, spec));
  }
  std::vector<Example> examples;
  for (const auto& [input_h, input_w] : kInputSizes) {
    examples.push_back(
        MakeExample(spec, *reference, geometry.activation, input_h, input_w, 2, &generator));
  }
  constexpr int kCallers = 4;
  std::vector<std::vector<std::vector<float>>> results(kCallers);
  std::vector<std::thread> callers;
  for (int caller = 0; caller < kCallers; ++caller) {
    callers.emplace_back([&, caller] {
      TestContext context(2);
      // Each caller walks the sizes from a different starting point, so that they overlap.
      for (size_t step = 0; step < examples.size(); ++step) {
        const Example& example = examples[(step + caller) % examples.size()];
        const ConvolutionAlgorithm& algorithm = *algorithms[(step + caller) % algorithms.size()];
        const ConvolutionPlan plan = algorithm.Plan(example.shape, geometry.activation, 2);
        plan.ReserveScratch(context.compute().workspace);
        const size_t input_floats = example.input.size() / 2;
        const size_t output_floats = example.expected.size() / 2;
        std::vector<float> output(example.expected.size());
        for (int sample = 0; sample < 2; ++sample) {
          algorithm.Run(plan, example.input.data() + sample * input_floats,
                        output.data() + sample * output_floats, context.compute());
        }
        results[caller].push_back(std::move(output));
      }
    });
  }
  for (std::thread& caller : callers) caller.join();
  for (int caller = 0; caller < kCallers; ++caller) {
    for (size_t step = 0; step < examples.size(); ++step) {
      const Algorithm kind = algorithms[(step + caller) % algorithms.size()]->kind();
      ExpectAgree(results[caller][step], ConvolutionAlgorithmName(kind),
                  examples[(step + caller) % examples.size()].expected, "your reference",
                  ToleranceFor(kind), ToleranceFor(kind),
                  "caller " + std::to_string(caller) + " step " + std::to_string(step));
    }
  }
}

// The thresholds of ChooseConvolutionAlgorithm at the shapes they were measured on: Winograd
// F(4x4) on ResNet18's 56x56 and 28x28 maps, F(2x2) on its 14x14 ones, on 7x7 F(2x2) with
// AVX-512's panels and im2col with AVX2's.
TEST(ConvolutionAlgorithmChoice, FollowsTheMeasuredRules) {
  const auto choose = [](const Geometry& geometry, bool bf16_products = false) {
    std::mt19937 generator(1);
    ConvolutionSpec spec = MakeSpec(geometry, &generator);
    spec.bf16_products = bf16_products;
    return ChooseConvolutionAlgorithm(
        spec, MakeConvolutionShape(spec.window, geometry.input_h, geometry.input_w));
  };
  EXPECT_EQ(choose(Conv("c", 64, 64, 56, 56, 3, 3).Padding(1)), Algorithm::kWinograd4x4);
  EXPECT_EQ(choose(Conv("c", 128, 128, 28, 28, 3, 3).Padding(1)), Algorithm::kWinograd4x4);
  // Which of the smaller maps count as enough tiles depends on the micro-kernel's panel height.
  const auto winograd_if_enough = [](int tiles_4x4, int tiles_2x2) {
    const int enough = 3 * kPanelRows / 4;
    const int enough_2x2 = kPanelRows >= 32 ? kPanelRows / 2 : enough;
    return tiles_4x4 >= enough       ? Algorithm::kWinograd4x4
           : tiles_2x2 >= enough_2x2 ? Algorithm::kWinograd2x2
                                     : Algorithm::kIm2col;
  };
  EXPECT_EQ(choose(Conv("c", 256, 256, 14, 14, 3, 3).Padding(1)), winograd_if_enough(16, 49));
  EXPECT_EQ(choose(Conv("c", 512, 512, 7, 7, 3, 3).Padding(1)), winograd_if_enough(4, 16));
  if (kPanelRows == 32) {  // AVX-512: exactly the rule as measured
    EXPECT_EQ(choose(Conv("c", 256, 256, 14, 14, 3, 3).Padding(1)), Algorithm::kWinograd2x2);
    EXPECT_EQ(choose(Conv("c", 512, 512, 7, 7, 3, 3).Padding(1)), Algorithm::kWinograd2x2);
    // With bf16 products im2col's AMX GEMM keeps 7x7 maps.
    EXPECT_EQ(choose(Conv("c", 512, 512, 7, 7, 3, 3).Padding(1), true), Algorithm::kIm2col);
    // Fewer than half a panel of 2x2 tiles: im2col (5x5 maps, 9 tiles).
    EXPECT_EQ(choose(Conv("c", 512, 512, 5, 5, 3, 3).Padding(1)), Algorithm::kIm2col);
  }
  // Few output channels still share the input transform well enough: the super-resolution net's
  // 32 -> 9 layer at 128x128 runs in 2.6 ms with F(4x4), 3.9 with im2col (AVX2, one thread).
  EXPECT_EQ(choose(Conv("c", 32, 9, 128, 128, 3, 3).Padding(1)), Algorithm::kWinograd4x4);
  // Unless they fit one panel and their padded input planes stay in L2 (1 MiB): DenseNet-121's
  // 48 -> 12 layers take small-depth where F(4x4) would run (at 40x40 and 20x20) on AVX-512,
  // whose panels have 14 columns (AVX2's 6 are too few), and im2col where Winograd would not run.
  const Algorithm few_outputs_in_cache =
      12 <= kPanelColumns ? Algorithm::kSmallDepth : Algorithm::kWinograd4x4;
  EXPECT_EQ(choose(Conv("c", 48, 12, 40, 40, 3, 3).Padding(1)), few_outputs_in_cache);
  EXPECT_EQ(choose(Conv("c", 48, 12, 20, 20, 3, 3).Padding(1)), few_outputs_in_cache);
  EXPECT_EQ(choose(Conv("c", 48, 12, 5, 5, 3, 3).Padding(1)), Algorithm::kIm2col);
  // Fewer go to small-depth, at any depth, while their padded input planes stay within 2.5 MiB
  // (32 x 130 x 130 floats are 2.1 MB; 64 are 4.3).
  EXPECT_EQ(choose(Conv("c", 16, 4, 56, 56, 3, 3).Padding(1)), Algorithm::kSmallDepth);
  EXPECT_EQ(choose(Conv("c", 32, 4, 128, 128, 3, 3).Padding(1)), Algorithm::kSmallDepth);
  EXPECT_EQ(choose(Conv("c", 64, 6, 128, 128, 3, 3).Padding(1)), Algorithm::kIm2col);
  EXPECT_EQ(choose(Conv("c", 16, 3, 128, 128, 9, 9).Padding(4)), Algorithm::kSmallDepth);
  // Ungrouped, only where the output's columns are at least half a tile tall: 14 rows are on
  // AVX2 (8-row half tiles), not on AVX-512 (16).
  EXPECT_EQ(choose(Conv("c", 256, 4, 28, 28, 3, 3).Stride(2, 2).Padding(1)),
            14 >= kPanelRows / 2 ? Algorithm::kSmallDepth : Algorithm::kIm2col);
  EXPECT_EQ(choose(Conv("c", 64, 128, 56, 56, 3, 3).Stride(2, 2).Padding(1)), Algorithm::kIm2col);
  EXPECT_EQ(choose(Conv("c", 64, 32, 160, 160, 1, 1)), Algorithm::kPointwise);
  EXPECT_EQ(choose(Conv("c", 64, 128, 56, 56, 1, 1).Stride(2, 2)), Algorithm::kIm2col);
  EXPECT_EQ(choose(Conv("c", 32, 32, 56, 56, 3, 3).Groups(32).Padding(1)), Algorithm::kDepthwise);
  // Stems and narrow groups (at most 8 input channels per group) read the padded input in place;
  // without groups, once their columns are at least half a tile tall.
  EXPECT_EQ(choose(Conv("c", 3, 64, 224, 224, 7, 7).Stride(2, 2).Padding(3)),
            Algorithm::kSmallDepth);
  EXPECT_EQ(choose(Conv("c", 3, 16, 224, 224, 3, 3).Stride(2, 2).Padding(1)),
            Algorithm::kSmallDepth);
  EXPECT_EQ(choose(Conv("c", 1, 64, 128, 128, 5, 5).Padding(2)), Algorithm::kSmallDepth);
  EXPECT_EQ(choose(Conv("c", 3, 16, 6, 6, 3, 3).Padding(1)), Algorithm::kIm2col);
  // K 363: 3.8 ms instead of im2col's 6.2.
  EXPECT_EQ(choose(Conv("c", 3, 16, 128, 128, 11, 11).Padding(5)), Algorithm::kSmallDepth);
  EXPECT_EQ(choose(Conv("c", 8, 16, 56, 56, 3, 3).Padding(1)), Algorithm::kSmallDepth);
  EXPECT_EQ(choose(Conv("c", 9, 16, 56, 56, 3, 3).Padding(1)), Algorithm::kIm2col);
  // RegNet's groups of 8 channels, down to its 7x7 maps.
  EXPECT_EQ(choose(Conv("c", 216, 216, 7, 7, 3, 3).Groups(27).Padding(1)), Algorithm::kSmallDepth);
}

// A layer builds the candidates' weights ahead of Prepare, or on the first Prepare that needs
// them: the candidates must cover every choice.
TEST(ConvolutionAlgorithmChoice, CandidatesCoverEveryChoice) {
  std::mt19937 generator(3);
  for (int index = 0; index < 300; ++index) {
    const Geometry geometry = RandomGeometry(index, &generator);
    std::mt19937 weights(1);
    const ConvolutionSpec spec = MakeSpec(geometry, &weights);
    const std::vector<Algorithm> candidates = CandidateConvolutionAlgorithms(spec);
    for (const auto& [input_h, input_w] : kInputSizes) {
      const ConvolutionShape shape = MakeConvolutionShape(spec.window, input_h, input_w);
      if (shape.output_h < 1 || shape.output_w < 1) continue;
      const Algorithm chosen = ChooseConvolutionAlgorithm(spec, shape);
      EXPECT_NE(std::find(candidates.begin(), candidates.end(), chosen), candidates.end())
          << geometry.name << " at " << input_h << "x" << input_w << " chooses "
          << ConvolutionAlgorithmName(chosen);
    }
  }
}

TEST(ConvolutionAlgorithmShape, RejectsSizesThatOverflowAnInt) {
  Window2d window;
  window.kernel_h = window.kernel_w = 3;
  EXPECT_EQ(MakeConvolutionShape(window, 5, 7).output_w, 5);
  EXPECT_THROW(MakeConvolutionShape(window, 70000, 70000), Error);  // a plane of 4.9e9 floats
  window.pad_top = 2147483000;
  window.stride_h = 1000;
  EXPECT_THROW(MakeConvolutionShape(window, 5, 7), Error);
}

// The message MakeConvolutionAlgorithm throws for `kind` on `geometry`, or "" if it accepts it.
std::string FactoryError(Algorithm kind, const Geometry& geometry) {
  std::mt19937 generator(7);
  try {
    MakeConvolutionAlgorithm(kind, MakeSpec(geometry, &generator));
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(ConvolutionAlgorithmFactory, WinogradRejectsWhatIsNotA3x3Stride1Convolution) {
  const std::string message = "Winograd needs a 3x3, stride-1 convolution";
  const Geometry conv3x3 = Conv("conv", 4, 4, 9, 9, 3, 3);
  for (Algorithm winograd : {Algorithm::kWinograd4x4, Algorithm::kWinograd2x2}) {
    EXPECT_THAT(FactoryError(winograd, Geometry(conv3x3).Stride(2, 2)), HasSubstr(message));
    EXPECT_THAT(FactoryError(winograd, Geometry(conv3x3).Stride(1, 2)), HasSubstr(message));
    EXPECT_THAT(FactoryError(winograd, Geometry(conv3x3).Dilation(2, 2)), HasSubstr(message));
    EXPECT_THAT(FactoryError(winograd, Geometry(conv3x3).Groups(2)), HasSubstr(message));
    EXPECT_THAT(FactoryError(winograd, Conv("conv", 4, 4, 9, 9, 5, 5)), HasSubstr(message));
    EXPECT_THAT(FactoryError(winograd, Conv("conv", 4, 4, 9, 9, 1, 3)), HasSubstr(message));
    EXPECT_EQ(FactoryError(winograd, conv3x3), "");
  }
}

TEST(ConvolutionAlgorithmFactory, PointwiseRejectsWhatIsNotA1x1Stride1UnpaddedConvolution) {
  const std::string message = "pointwise convolution needs 1x1, stride 1, no padding";
  const Geometry conv1x1 = Conv("conv", 4, 4, 9, 9, 1, 1);
  EXPECT_THAT(FactoryError(Algorithm::kPointwise, Conv("conv", 4, 4, 9, 9, 3, 3)),
              HasSubstr(message));
  EXPECT_THAT(FactoryError(Algorithm::kPointwise, Geometry(conv1x1).Stride(2, 2)),
              HasSubstr(message));
  EXPECT_THAT(FactoryError(Algorithm::kPointwise, Geometry(conv1x1).Padding(0, 1, 0, 0)),
              HasSubstr(message));
  EXPECT_EQ(FactoryError(Algorithm::kPointwise, conv1x1), "");
}

TEST(ConvolutionAlgorithmFactory, DepthwiseRejectsGroupsOtherThanTheInputChannels) {
  const std::string message = "depthwise convolution needs groups == in_channels";
  EXPECT_THAT(FactoryError(Algorithm::kDepthwise, Conv("conv", 4, 4, 9, 9, 3, 3)),
              HasSubstr(message));
  EXPECT_THAT(FactoryError(Algorithm::kDepthwise, Conv("conv", 6, 6, 9, 9, 3, 3).Groups(3)),
              HasSubstr(message));
  EXPECT_EQ(FactoryError(Algorithm::kDepthwise, Conv("conv", 4, 8, 9, 9, 3, 3).Groups(4)), "");
}

TEST(ConvolutionAlgorithmFactory, NamesEveryAlgorithm) {
  const Geometry conv3x3 = Conv("conv", 4, 4, 9, 9, 3, 3);
  std::mt19937 generator(7);
  const ConvolutionSpec spec = MakeSpec(conv3x3, &generator);
  EXPECT_STREQ(MakeConvolutionAlgorithm(Algorithm::kReference, spec)->name(), "reference");
  EXPECT_STREQ(MakeConvolutionAlgorithm(Algorithm::kIm2col, spec)->name(), "im2col");
  EXPECT_STREQ(MakeConvolutionAlgorithm(Algorithm::kWinograd4x4, spec)->name(), "winograd");
  EXPECT_STREQ(MakeConvolutionAlgorithm(Algorithm::kWinograd2x2, spec)->name(), "winograd-2x2");
  EXPECT_STREQ(ConvolutionAlgorithmName(Algorithm::kPointwise), "pointwise");
  EXPECT_STREQ(ConvolutionAlgorithmName(Algorithm::kDepthwise), "depthwise");
  EXPECT_STREQ(MakeConvolutionAlgorithm(Algorithm::kSmallDepth, spec)->name(), "small-depth");
}

}  // namespace
}  // namespace lumen
