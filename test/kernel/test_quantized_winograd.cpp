// QuantizedWinograd against the int8 GEMM's reference on im2col rows (ReferenceQuantizedIm2col,
// then ReferenceInt8Gemm): to the bit with unit scales (the Winograd sums are exact), to float
// rounding with real scales, bias and ReLU; over paddings, odd sizes, odd channel counts, maps of
// one tile and many panels, the extreme values the int32 bound allows, both int16-pair kernels,
// one thread and two.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernel/quantized_im2col.hpp"
#include "kernel/quantized_winograd.hpp"
#include "lumen/error.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace {

// A 3x3 stride-1 window with this padding.
Window2d Window(int top, int bottom, int left, int right) {
  Window2d window;
  window.kernel_h = window.kernel_w = 3;
  window.pad_top = top, window.pad_bottom = bottom;
  window.pad_left = left, window.pad_right = right;
  return window;
}

// One convolution's operands.
struct Operands {
  int in_channels, out_channels, input_h, input_w;
  Window2d window;
  std::vector<uint8_t> input;   // in_channels column-major planes
  std::vector<int8_t> weights;  // out x in x 3 x 3
  std::vector<float> scales;
  std::vector<float> bias;  // empty: none
  Uint8Quantization quantization;
};

// The int8 kernels with the int16-pair layout this CPU runs.
std::vector<Int8Isa> PairIsas() {
  std::vector<Int8Isa> isas = {Int8Isa::kGeneric};
  if (Int8IsaAvailable(Int8Isa::kAvx2)) isas.push_back(Int8Isa::kAvx2);
  return isas;
}

// Runs QuantizedWinograd on `o` and the reference, and compares: bit for bit when `exact`, else
// within float rounding.
void ExpectMatchesReference(const Operands& o, const Activation& activation, bool exact) {
  const ConvolutionShape shape = MakeConvolutionShape(o.window, o.input_h, o.input_w);
  const int pixels = shape.output_h * shape.output_w;
  const int depth = o.in_channels * 9;
  std::vector<uint8_t> rows(static_cast<size_t>(pixels) * depth);
  ReferenceQuantizedIm2col(o.input.data(), o.in_channels, shape, o.window,
                           static_cast<uint8_t>(o.quantization.zero_point), rows.data());
  std::vector<float> expected(static_cast<size_t>(pixels) * o.out_channels);
  const float* bias = o.bias.empty() ? nullptr : o.bias.data();
  ReferenceInt8Gemm(pixels, o.out_channels, depth, rows.data(), pixels, o.quantization,
                    o.weights.data(), depth, o.scales.data(), bias, activation, expected.data(),
                    pixels);
  for (Int8Isa isa : PairIsas()) {
    const QuantizedWinograd winograd(o.weights.data(), o.out_channels, o.in_channels,
                                     o.scales.data(), isa);
    for (int threads : {1, 2, 3}) {  // 3: the 2-block cases take the shared path
      SCOPED_TRACE(Concat(o.in_channels, "->", o.out_channels, " on ", o.input_h, "x", o.input_w,
                          " padding ", o.window.pad_top, ",", o.window.pad_bottom, ",",
                          o.window.pad_left, ",", o.window.pad_right, ", ", Int8IsaName(isa),
                          ", threads ", threads));
      test_support::TestContext context(threads);
      // Both ways of running: blocks private to each thread (no shared V), and, where there are
      // fewer blocks than threads, the shared V of the whole sample.
      std::vector<int16_t> shared(winograd.TransformedInputValues(shape, threads), 0);
      for (int16_t* shared_values : {static_cast<int16_t*>(nullptr), shared.data()}) {
        if (shared_values != nullptr && shared.empty()) continue;
        SCOPED_TRACE(shared_values == nullptr ? "private blocks" : "shared V");
        std::vector<float> got(expected.size(), NAN);
        winograd.Run(shape, o.window, o.input.data(), o.quantization, bias, activation,
                     shared_values, got.data(), context.compute());
        // Twice: a second run on the same buffers must not depend on the first.
        winograd.Run(shape, o.window, o.input.data(), o.quantization, bias, activation,
                     shared_values, got.data(), context.compute());
        for (size_t i = 0; i < got.size(); ++i) {
          if (exact) {
            ASSERT_EQ(got[i], expected[i]) << "at " << i;
          } else {
            ASSERT_NEAR(got[i], expected[i], 1e-6f * std::fabs(expected[i]) + 1e-7f) << "at " << i;
          }
        }
      }
    }
  }
}

// Random operands: bytes over [0, 255], weights over [-128, 127].
Operands RandomOperands(int in_channels, int out_channels, int input_h, int input_w,
                        const Window2d& window, std::mt19937* generator) {
  Operands o{in_channels, out_channels, input_h, input_w, window, {}, {}, {}, {}, {}};
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> weight(-128, 127);
  o.input.resize(static_cast<size_t>(in_channels) * input_h * input_w);
  for (uint8_t& value : o.input) value = static_cast<uint8_t>(byte(*generator));
  o.weights.resize(static_cast<size_t>(out_channels) * in_channels * 9);
  for (int8_t& value : o.weights) value = static_cast<int8_t>(weight(*generator));
  o.scales.assign(out_channels, 1.0f);
  o.quantization = {1.0f, byte(*generator)};
  return o;
}

TEST(QuantizedWinograd, SumsAreExact) {
  struct Case {
    int in_channels, out_channels, input_h, input_w;
    Window2d window;
  };
  const std::vector<Case> cases = {
      {8, 16, 10, 12, Window(1, 1, 1, 1)},   // ResNet's padding, even sizes
      {5, 7, 9, 11, Window(1, 1, 1, 1)},     // odd sizes: tiles cut by the edges; odd channels
      {3, 6, 7, 7, Window(0, 0, 0, 0)},      // no padding: 5x5 out
      {2, 13, 6, 9, Window(2, 0, 0, 3)},     // asymmetric padding wider than the window's reach
      {1, 1, 3, 3, Window(0, 0, 0, 0)},      // one output pixel
      {4, 5, 1, 1, Window(1, 1, 1, 1)},      // a 1x1 map: every tap but one is padding
      {33, 50, 40, 37, Window(1, 1, 1, 1)},  // many panels and column panels, a partial chunk
  };
  std::mt19937 generator(3);
  for (const Case& c : cases) {
    const Operands o =
        RandomOperands(c.in_channels, c.out_channels, c.input_h, c.input_w, c.window, &generator);
    ExpectMatchesReference(o, Activation{}, true);
  }
}

TEST(QuantizedWinograd, SliceOfChannelsAccumulate) {
  // More than 512 input channels: the micro-kernel runs over two slices of the channel pairs.
  std::mt19937 generator(5);
  ExpectMatchesReference(RandomOperands(530, 3, 4, 5, Window(1, 1, 1, 1), &generator), Activation{},
                         true);
}

TEST(QuantizedWinograd, ExtremeValuesStayExact) {
  // The most input channels, at the values that make the sums largest: every product
  // 255 * -128 (4x the sum then sits just inside int32), and alternating signs, where the
  // transformed input reaches its largest magnitudes.
  const int channels = kQuantizedWinogradMostChannels;
  for (int pattern = 0; pattern < 2; ++pattern) {
    SCOPED_TRACE(pattern == 0 ? "uniform extremes" : "alternating extremes");
    Operands o{channels, 2, 4, 4, Window(0, 0, 0, 0), {}, {}, {}, {}, {}};
    o.input.resize(static_cast<size_t>(channels) * 16);
    o.weights.resize(static_cast<size_t>(2) * channels * 9);
    for (size_t i = 0; i < o.input.size(); ++i) {
      o.input[i] = pattern == 0 ? 255 : (i % 2 == (i / 4) % 2 ? 255 : 0);
    }
    for (size_t i = 0; i < o.weights.size(); ++i) {
      o.weights[i] = pattern == 0 ? -128 : (i % 2 == 0 ? 127 : -128);
    }
    o.scales = {1.0f, 1.0f};
    o.quantization = {1.0f, pattern == 0 ? 0 : 128};
    ExpectMatchesReference(o, Activation{}, true);
  }
}

TEST(QuantizedWinograd, DequantisesAsTheGemm) {
  std::mt19937 generator(11);
  Operands o = RandomOperands(12, 20, 14, 14, Window(1, 1, 1, 1), &generator);
  std::uniform_real_distribution<float> uniform(0.001f, 0.01f);
  for (float& scale : o.scales) scale = uniform(generator);
  o.bias.resize(o.out_channels);
  for (float& value : o.bias) value = uniform(generator) * 100 - 0.5f;
  o.quantization.scale = 0.02f;
  ExpectMatchesReference(o, Activation{}, false);
  ExpectMatchesReference(o, Activation{Activation::Kind::kRelu}, false);
}

TEST(QuantizedWinograd, RefusesWhatItCannotCompute) {
  const std::vector<int8_t> weights(static_cast<size_t>(kQuantizedWinogradMostChannels + 1) * 9);
  const std::vector<float> scales(1, 1.0f);
  EXPECT_THROW(QuantizedWinograd(weights.data(), 1, kQuantizedWinogradMostChannels + 1,
                                 scales.data(), Int8Isa::kGeneric),
               Error);
  EXPECT_THAT([&] { QuantizedWinograd(weights.data(), 1, 4, scales.data(), Int8Isa::kAvx512Vnni); },
              ::testing::ThrowsMessage<Error>(::testing::HasSubstr("int16 pairs")));
  Window2d strided = Window(1, 1, 1, 1);
  strided.stride_h = 2;
  EXPECT_FALSE(QuantizedWinograd::Applies(strided, 8, 1));
  EXPECT_FALSE(QuantizedWinograd::Applies(Window(1, 1, 1, 1), 8, 2));
  EXPECT_TRUE(QuantizedWinograd::Applies(Window(1, 1, 1, 1), 8, 1));
}

}  // namespace
}  // namespace lumen
