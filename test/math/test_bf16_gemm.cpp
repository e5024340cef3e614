// The bf16 GEMM's kernels against the plain-loop reference (both operands rounded to bf16, sums in
// double), on shapes that are and are not multiples of the 32 x 14 tile, of the 2-deep pairs and
// of the 128-pair slices, with a bias and activations, on 1 and 2 threads; and its packing.
//
// The generic kernel runs everywhere; the AVX512-BF16 and AMX ones are skipped with a message
// saying so on CPUs without vdpbf16ps or AMX (run the tests on such a machine to cover them).
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "base/bfloat16.hpp"
#include "base/cpu_features.hpp"
#include "lumen/error.hpp"
#include "math/bf16_gemm.hpp"
#include "math/bf16_gemm_kernels.hpp"
#include "math/packed_gemm.hpp"
#include "support/case_runner.hpp"
#include "support/error_of.hpp"
#include "support/kernel_testing.hpp"

namespace lumen {
namespace {

using test_support::ExpectClose;
using test_support::RandomValues;
using test_support::TestContext;

// bf16 rounding of a value: what the GEMM multiplies.
float Rounded(float value) { return BFloat16ToFloat(FloatToBFloat16(value)); }

TEST(Bf16Gemm, APairHoldsTheEvenStepLowAndTheOddStepHigh) {
  const uint32_t cell = Bf16Pair(1.0f, -2.0f);
  EXPECT_EQ(cell & 0xFFFFu, 0x3F80u);  // bf16(1.0)
  EXPECT_EQ(cell >> 16, 0xC000u);      // bf16(-2.0)
  // Rounded to the nearest: 1 + 2^-8 lies halfway between 1 and 1 + 2^-7 and goes to even (1);
  // 1 + 3 * 2^-8 goes up.
  EXPECT_EQ(Bf16Pair(1.00390625f, 1.01171875f), 0x3F823F80u);
}

TEST(Bf16Gemm, PacksRowsInPairsAndPadsWithZeros) {
  const int m = 37;  // one full row panel and 5 rows of a second
  const int k = 5;   // an odd depth: the last pair's high half is padding
  const int lda = 40;
  std::mt19937 generator(7);
  const std::vector<float> a = RandomValues(static_cast<size_t>(lda) * k, &generator);
  const int pairs = 5;  // 3 for the depth, 2 more as AMX pads its blocks
  std::vector<uint32_t> packed(static_cast<size_t>(2) * kBf16PanelRows * pairs, 0xDEADBEEF);
  PackBf16Rows(a.data(), lda, m, k, pairs, packed.data());
  for (int panel = 0; panel < 2; ++panel) {
    for (int pair = 0; pair < pairs; ++pair) {
      for (int row = 0; row < kBf16PanelRows; ++row) {
        const int i = panel * kBf16PanelRows + row;
        const int p = 2 * pair;
        const uint32_t expected =
            i >= m || p >= k ? 0u
                             : Bf16Pair(a[i + p * lda], p + 1 < k ? a[i + (p + 1) * lda] : 0.0f);
        EXPECT_EQ(packed[(static_cast<size_t>(panel) * pairs + pair) * kBf16PanelRows + row],
                  expected)
            << "row " << i << ", pair " << pair;
      }
    }
  }
}

// An A the fp32 GEMM packed (Winograd's tiles) repacks into the same cells as the A itself.
TEST(Bf16Gemm, RepacksTheFp32GemmsRowPanelsAsItPacksA) {
  for (const auto& [m, k] : {std::pair{37, 5}, std::pair{16, 2}, std::pair{70, 33}}) {
    std::mt19937 generator(static_cast<unsigned>(m * 100 + k));
    const std::vector<float> a = RandomValues(static_cast<size_t>(m) * k, &generator);
    std::vector<float> fp32_panels(PackedRowsSize(m, k));
    PackRows(a.data(), m, m, k, fp32_panels.data());
    // The depth's own pairs, and AMX's padding to 16.
    for (const int pairs : {(k + 1) / 2, 16 * ((k + 32) / 32)}) {
      std::vector<uint32_t> expected(Bf16PackedRowsCells(m, pairs), 1u);
      std::vector<uint32_t> got(expected.size(), 2u);
      PackBf16Rows(a.data(), m, m, k, pairs, expected.data());
      RepackBf16Rows(fp32_panels.data(), m, k, pairs, got.data());
      EXPECT_EQ(got, expected) << m << " rows, depth " << k << ", " << pairs << " pairs";
    }
  }
}

// C = A * W^T with A m x k and W n x k.
struct Bf16Shape {
  int m, n, k;
};

void PrintTo(const Bf16Shape& shape, std::ostream* stream) {
  *stream << "m" << shape.m << "_n" << shape.n << "_k" << shape.k;
}

// Edges of the tiles (32 x 14, AMX's 32 x 32), of a block (4 row panels), of the pairs, of AMX's
// 16-pair blocks and of the 128-pair (256-deep) slices, then random shapes up to a few hundred.
std::vector<Bf16Shape> Shapes() {
  std::vector<Bf16Shape> shapes = {
      {1, 1, 1},      {31, 13, 3},    {32, 14, 2},   {33, 15, 5},   {127, 27, 255},
      {128, 28, 256}, {129, 29, 257}, {300, 3, 600}, {49, 64, 576}, {2, 37, 300},
      {64, 32, 32},   {65, 33, 34},   {96, 96, 512}, {40, 70, 33},
  };
  std::mt19937 generator(2468);
  std::uniform_int_distribution<int> rows(1, 300), columns(1, 100), depth(1, 700);
  for (int i = 0; i < 6; ++i)
    shapes.push_back({rows(generator), columns(generator), depth(generator)});
  return shapes;
}

const Bf16Isa kIsas[] = {Bf16Isa::kGeneric, Bf16Isa::kAvx512Bf16, Bf16Isa::kAmxBf16};

// The test name of a kernel: its name in lower case without the dash ("AMX-BF16": "amxbf16").
std::string IsaLabel(Bf16Isa isa) {
  std::string label;
  for (const char* c = Bf16IsaName(isa); *c != '\0'; ++c) {
    if (*c != '-') label += static_cast<char>(std::tolower(static_cast<unsigned char>(*c)));
  }
  return label;
}

class Bf16GemmTest : public testing::TestWithParam<std::tuple<Bf16Isa, Bf16Shape>> {};

// Every kernel against the reference. The products of bf16 values are exact in fp32, so the two
// differ only in the order (and precision) of the sums: at most k * 2^-23 of the sum of the
// products' magnitudes. A product paired with the wrong weight or row is off by the products
// themselves, far beyond that.
TEST_P(Bf16GemmTest, MatchesTheReference) {
  const Bf16Isa isa = std::get<0>(GetParam());
  if (!Bf16IsaAvailable(isa)) {
    GTEST_SKIP() << Bf16IsaName(isa) << " kernel not tested: this CPU ("
                 << DetectedCpuFeatures().Describe() << ", as LUMEN_ISA allows) lacks it";
  }
  const Bf16Shape shape = std::get<1>(GetParam());
  const int lda = shape.m + 3;
  const int ldw = shape.k + 2;
  const int ldc = shape.m + 5;
  std::mt19937 generator(static_cast<unsigned>(shape.m) * 1000003u + shape.n * 1009u + shape.k);
  const std::vector<float> a = RandomValues(static_cast<size_t>(lda) * shape.k, &generator);
  const std::vector<float> w = RandomValues(static_cast<size_t>(ldw) * shape.n, &generator);
  const std::vector<float> bias = RandomValues(shape.n, &generator);
  const Bf16PackedWeights packed(w.data(), shape.n, shape.k, ldw, isa);
  ASSERT_EQ(packed.isa(), isa);
  const int pairs = (shape.k + 1) / 2;
  ASSERT_EQ(packed.pairs(), isa == Bf16Isa::kAmxBf16 ? (pairs + 15) / 16 * 16 : pairs);
  // The bound on the sums' rounding, from the largest sum of magnitudes of any output.
  double largest_magnitude = 0.0;
  for (int j = 0; j < shape.n; ++j) {
    for (int i = 0; i < shape.m; ++i) {
      double magnitude = 0.0;
      for (int p = 0; p < shape.k; ++p) {
        magnitude += std::fabs(Rounded(a[i + static_cast<size_t>(p) * lda]) *
                               Rounded(w[static_cast<size_t>(j) * ldw + p]));
      }
      largest_magnitude = std::max(largest_magnitude, magnitude);
    }
  }
  const float tolerance =
      static_cast<float>(shape.k * std::ldexp(1.0, -23) * largest_magnitude) + 1e-6f;
  Activation relu;
  relu.kind = Activation::Kind::kRelu;
  for (const bool with_bias : {false, true}) {
    for (const Activation& activation : {Activation{}, relu}) {
      for (const int threads : {1, 2}) {
        const float* b = with_bias ? bias.data() : nullptr;
        std::vector<float> expected(static_cast<size_t>(ldc) * shape.n, 0.0f);
        ReferenceBf16Gemm(shape.m, shape.n, shape.k, a.data(), lda, w.data(), ldw, b, activation,
                          expected.data(), ldc);
        std::vector<float> got(expected.size(), 0.0f);  // rows m..ldc stay 0 in both
        TestContext context(threads);
        Bf16Gemm(shape.m, a.data(), lda, packed, b, activation, got.data(), ldc, context.compute());
        ExpectClose(got, expected, tolerance, 0.0f,
                    std::string(Bf16IsaName(isa)) + (with_bias ? ", bias" : "") +
                        (activation.kind == Activation::Kind::kRelu ? ", ReLU" : "") + ", " +
                        std::to_string(threads) + " threads");
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, Bf16GemmTest,
                         testing::Combine(testing::ValuesIn(kIsas), testing::ValuesIn(Shapes())),
                         [](const testing::TestParamInfo<Bf16GemmTest::ParamType>& info) {
                           const Bf16Shape& shape = std::get<1>(info.param);
                           return IsaLabel(std::get<0>(info.param)) + "_m" +
                                  std::to_string(shape.m) + "_n" + std::to_string(shape.n) + "_k" +
                                  std::to_string(shape.k);
                         });

// The matrix-vector product (a Linear at batch 1) against the reference's one row, on both kernels,
// with a strided row, a bias and ReLU, on 1 and 2 threads.
TEST(Bf16Gemm, MatrixVectorMatchesTheReference) {
  for (const Bf16Isa isa : kIsas) {
    if (!Bf16IsaAvailable(isa)) continue;  // AVX512-BF16 and AMX: on CPUs that have them
    for (const auto& [n, k] : {std::pair{1, 1}, std::pair{14, 2}, std::pair{15, 3},
                               std::pair{1000, 512}, std::pair{37, 301}, std::pair{33, 40}}) {
      std::mt19937 generator(static_cast<unsigned>(n * 1000 + k));
      const int stride = 3;
      const std::vector<float> x = RandomValues(static_cast<size_t>(k) * stride, &generator);
      const std::vector<float> w = RandomValues(static_cast<size_t>(n) * k, &generator);
      const std::vector<float> bias = RandomValues(n, &generator);
      const Bf16PackedWeights packed(w.data(), n, k, k, isa);
      Activation relu;
      relu.kind = Activation::Kind::kRelu;
      std::vector<float> expected(n);
      ReferenceBf16Gemm(1, n, k, x.data(), stride, w.data(), k, bias.data(), relu, expected.data(),
                        1);
      for (const int threads : {1, 2}) {
        TestContext context(threads);
        std::vector<float> got(n, -1.0f);
        Bf16MatrixVector(x.data(), stride, packed, bias.data(), relu, got.data(),
                         context.compute());
        // Sums of k products of magnitude below 1: at most k * 2^-23 * k apart.
        ExpectClose(got, expected, static_cast<float>(k) * k * 1.2e-7f + 1e-6f, 0.0f,
                    std::string(Bf16IsaName(isa)) + " n" + std::to_string(n) + " k" +
                        std::to_string(k) + " on " + std::to_string(threads) + " threads");
      }
    }
  }
}

// Scratch reserved with Bf16GemmScratchSize is all a product asks for.
TEST(Bf16Gemm, RunsWithinTheScratchItReserves) {
  const int m = 300, n = 40, k = 70;
  std::mt19937 generator(11);
  const std::vector<float> a = RandomValues(static_cast<size_t>(m) * k, &generator);
  const std::vector<float> w = RandomValues(static_cast<size_t>(n) * k, &generator);
  const Bf16PackedWeights packed(w.data(), n, k, k, Bf16Isa::kGeneric);
  TestContext context(2);
  context.compute().workspace->Reserve(ScratchSlot::kGemmPacking, Bf16GemmScratchSize(m, packed));
  const size_t reserved = context.compute().workspace->bytes();
  std::vector<float> c(static_cast<size_t>(m) * n);
  Bf16Gemm(m, a.data(), m, packed, nullptr, Activation{}, c.data(), m, context.compute());
  EXPECT_EQ(context.compute().workspace->bytes(), reserved);
}

TEST(Bf16Gemm, RejectsBadSizesAndKernelsThisCpuLacks) {
  const std::vector<float> w(12, 1.0f);
  EXPECT_THROW(Bf16PackedWeights(w.data(), 0, 3, 3), Error);
  EXPECT_THROW(Bf16PackedWeights(w.data(), 4, 0, 3), Error);
  EXPECT_THROW(Bf16PackedWeights(w.data(), 4, 3, 2), Error);
  const Bf16PackedWeights packed(w.data(), 4, 3, 3, Bf16Isa::kGeneric);
  std::vector<float> a(6, 1.0f), c(8, 0.0f);
  TestContext context(1);
  EXPECT_THROW(
      Bf16Gemm(2, a.data(), 1, packed, nullptr, Activation{}, c.data(), 2, context.compute()),
      Error);
  EXPECT_THROW(Bf16Gemm(2, a.data(), 2, Bf16PackedWeights(), nullptr, Activation{}, c.data(), 2,
                        context.compute()),
               Error);
  for (const Bf16Isa isa : {Bf16Isa::kAvx512Bf16, Bf16Isa::kAmxBf16}) {
    if (Bf16IsaAvailable(isa)) continue;
    const Bf16PackedWeights foreign(w.data(), 4, 3, 3, isa);
    const std::string message = test_support::ErrorOf([&] {
      Bf16Gemm(2, a.data(), 2, foreign, nullptr, Activation{}, c.data(), 2, context.compute());
    });
    EXPECT_NE(message.find(Bf16IsaName(isa)), std::string::npos) << message;
  }
}

// The probe that decides whether bf16 products pay: its rates must be those of real instructions
// (an fp32 rate off by orders of magnitude would mean the timed loop was optimised away), and a
// CPU without AVX512-BF16 never takes the bf16 GEMM by default.
TEST(Bf16Gemm, MeasuresProductRatesBeforeChoosingBf16Products) {
  if (!Bf16IsaAvailable(Bf16Isa::kAvx512Bf16)) {
    EXPECT_FALSE(Bf16GemmIsFast());
    GTEST_SKIP() << "no AVX512-BF16 on this CPU (" << DetectedCpuFeatures().Describe()
                 << "): the probe cannot run";
  }
  const Bf16ProductRates rates = MeasureAvx512Bf16ProductRates();
  RecordProperty("bf16_products_per_ns", std::to_string(rates.bf16));
  RecordProperty("fp32_products_per_ns", std::to_string(rates.fp32));
  // One 512-bit FMA per cycle at 0.5 GHz at least, four per cycle at 6 GHz at most.
  EXPECT_GT(rates.fp32, 16 * 0.5) << "fp32 " << rates.fp32 << " products/ns";
  EXPECT_LT(rates.fp32, 16 * 4 * 6.0) << "fp32 " << rates.fp32 << " products/ns";
  EXPECT_GT(rates.bf16, 0.0);
  EXPECT_LT(rates.bf16, 32 * 4 * 6.0) << "bf16 " << rates.bf16 << " products/ns";
  std::cout << "vdpbf16ps " << rates.bf16 << " products/ns, FMA " << rates.fp32
            << "; bf16 products by default: " << (Bf16GemmIsFast() ? "yes" : "no") << "\n";
  // AMX makes several times the FMA's products: bf16 always pays where it can run.
  if (Bf16IsaAvailable(Bf16Isa::kAmxBf16)) {
    EXPECT_TRUE(Bf16GemmIsFast());
  }
}

}  // namespace
}  // namespace lumen
