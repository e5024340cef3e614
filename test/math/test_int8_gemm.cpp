// The int8 GEMM's kernels against the three-loop reference: exact int32 sums and the same floats
// after dequantisation, on shapes that are and are not multiples of each kernel's tile, at the
// saturation extremes, on 1 and 2 threads; and the quantisation step's rounding and saturation.
//
// Every kernel this CPU can run is tested; the others are skipped with a message saying so (run
// the tests on a VNNI machine to cover that kernel, and with LUMEN_ISA=generic or avx2 there to
// cover the fallbacks on a machine that has more).
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "base/cpu_features.hpp"
#include "lumen/error.hpp"
#include "math/int8_gemm.hpp"
#include "math/int8_gemm_kernels.hpp"
#include "support/case_runner.hpp"
#include "support/kernel_testing.hpp"

namespace lumen {
namespace {

using test_support::ExpectClose;
using test_support::TestContext;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

// C = A * W^T with A m x k and W n x k.
struct Int8Shape {
  int m, n, k;
};

void PrintTo(const Int8Shape& shape, std::ostream* stream) {
  *stream << "m" << shape.m << "_n" << shape.n << "_k" << shape.k;
}

// Edges of every kernel's tile (16 x 6, 32 x 14 and AMX's 32 x 32), of the 4-deep groups, AMX's
// 64-deep blocks and the 512-deep slices, more rows than one packed block (4 panels), the
// matrix-vector path (m <= 4) and just past it, then random shapes up to a few hundred.
std::vector<Int8Shape> Shapes() {
  std::vector<Int8Shape> shapes = {
      {1, 1, 1},     {15, 5, 3},      {16, 6, 4},     {17, 7, 5},   {31, 13, 511},   {32, 14, 512},
      {33, 15, 513}, {130, 29, 1030}, {1, 1000, 512}, {300, 3, 37}, {49, 64, 576},   {7, 2, 2},
      {2, 37, 300},  {3, 13, 1001},   {4, 6, 24},     {5, 200, 64}, {4, 1000, 4608}, {32, 32, 64},
      {31, 33, 65},  {64, 64, 63},    {97, 96, 2304},
  };
  std::mt19937 generator(4321);
  std::uniform_int_distribution<int> rows(1, 300), columns(1, 100), depth(1, 700);
  for (int i = 0; i < 8; ++i)
    shapes.push_back({rows(generator), columns(generator), depth(generator)});
  return shapes;
}

const Int8Isa kIsas[] = {Int8Isa::kGeneric, Int8Isa::kAvx2, Int8Isa::kAvx512Vnni,
                         Int8Isa::kAmxInt8};

class Int8GemmTest : public testing::TestWithParam<std::tuple<Int8Isa, Int8Shape>> {
 protected:
  // Random operands over the whole ranges (uint8 A, int8 W including -128), a zero point, and the
  // reference sums.
  void SetUp() override {
    isa_ = std::get<0>(GetParam());
    if (!Int8IsaAvailable(isa_)) {
      GTEST_SKIP() << Int8IsaName(isa_) << " kernel not tested: this CPU ("
                   << DetectedCpuFeatures().Describe() << ", as LUMEN_ISA allows) lacks it";
    }
    const Int8Shape shape = std::get<1>(GetParam());
    m_ = shape.m;
    n_ = shape.n;
    k_ = shape.k;
    lda_ = m_ + 3;
    ldw_ = k_ + 2;
    ldc_ = m_ + 5;
    std::mt19937 generator(static_cast<unsigned>(m_) * 1000003u + n_ * 1009u + k_);
    std::uniform_int_distribution<int> bytes(0, 255), weights(-128, 127), zero(0, 255);
    a_.resize(static_cast<size_t>(lda_) * k_);
    for (uint8_t& value : a_) value = static_cast<uint8_t>(bytes(generator));
    w_.resize(static_cast<size_t>(ldw_) * n_);
    for (int8_t& value : w_) value = static_cast<int8_t>(weights(generator));
    scales_.resize(n_);
    bias_.resize(n_);
    std::uniform_real_distribution<float> scale(0.001f, 0.01f), bias(-1.0f, 1.0f);
    for (int j = 0; j < n_; ++j) {
      scales_[j] = scale(generator);
      bias_[j] = bias(generator);
    }
    zero_point_ = zero(generator);
  }

  Int8PackedWeights Pack() const {
    return Int8PackedWeights(w_.data(), n_, k_, ldw_, scales_.data(), isa_);
  }

  std::vector<int32_t> ReferenceSums() const {
    std::vector<int32_t> sums(static_cast<size_t>(ldc_) * n_, -1);
    ReferenceInt8GemmSums(m_, n_, k_, a_.data(), lda_, zero_point_, w_.data(), ldw_, sums.data(),
                          ldc_);
    return sums;
  }

  // Int8GemmSums on `threads` threads, C pre-filled with a marker that must survive in the gap.
  std::vector<int32_t> Sums(int threads) const {
    TestContext context(threads);
    std::vector<int32_t> sums(static_cast<size_t>(ldc_) * n_, -1);
    Int8GemmSums(m_, a_.data(), lda_, zero_point_, Pack(), sums.data(), ldc_, context.compute());
    return sums;
  }

  Int8Isa isa_ = Int8Isa::kGeneric;
  int m_ = 0, n_ = 0, k_ = 0;
  int lda_ = 0, ldw_ = 0, ldc_ = 0;
  int zero_point_ = 0;
  std::vector<uint8_t> a_;
  std::vector<int8_t> w_;
  std::vector<float> scales_, bias_;
};

// Exact, including the rows between m and ldc, which must stay unwritten (-1).
TEST_P(Int8GemmTest, SumsEqualReference) { EXPECT_EQ(Sums(1), ReferenceSums()); }

TEST_P(Int8GemmTest, TwoThreadsEqualOne) { EXPECT_EQ(Sums(2), Sums(1)); }

// The float epilogue: the same int32 sums and the same float operations as the reference, so the
// same floats, up to the activation's vectorised and scalar forms rounding alike (1 ulp margin).
TEST_P(Int8GemmTest, DequantisedMatchesReference) {
  const Uint8Quantization quantization{0.02f, zero_point_};
  for (const Activation activation :
       {Activation{}, Activation{Activation::Kind::kRelu}, Activation{Activation::Kind::kSilu}}) {
    SCOPED_TRACE("activation " + std::to_string(static_cast<int>(activation.kind)));
    std::vector<float> expected(static_cast<size_t>(ldc_) * n_, kNan);
    ReferenceInt8Gemm(m_, n_, k_, a_.data(), lda_, quantization, w_.data(), ldw_, scales_.data(),
                      bias_.data(), activation, expected.data(), ldc_);
    for (int threads : {1, 2}) {
      TestContext context(threads);
      std::vector<float> c(static_cast<size_t>(ldc_) * n_, kNan);
      Int8Gemm(m_, a_.data(), lda_, quantization, Pack(), bias_.data(), activation, c.data(), ldc_,
               context.compute());
      ExpectClose(c, expected, 0.0f, 2e-7f, std::to_string(threads) + " threads");
    }
  }
}

// "avx2_m16_n6_k4": the kernel (its name in lower case, letters and digits only: "AVX-512 VNNI"
// is "avx512vnni") and the shape, as gtest names the test.
std::string Int8GemmTestName(const testing::TestParamInfo<Int8GemmTest::ParamType>& info) {
  const Int8Shape& shape = std::get<1>(info.param);
  std::string label;
  for (const char* c = Int8IsaName(std::get<0>(info.param)); *c != '\0'; ++c) {
    if (std::isalnum(static_cast<unsigned char>(*c))) {
      label += static_cast<char>(std::tolower(static_cast<unsigned char>(*c)));
    }
  }
  return label + "_m" + std::to_string(shape.m) + "_n" + std::to_string(shape.n) + "_k" +
         std::to_string(shape.k);
}

// Requantised bytes: the reference's floats quantised by QuantizeToUint8, exactly.
TEST_P(Int8GemmTest, RequantisedMatchesReference) {
  const Uint8Quantization quantization{0.02f, zero_point_};
  const Uint8Quantization output_quantization{0.05f, 100};
  const Activation relu{Activation::Kind::kRelu};
  std::vector<float> values(static_cast<size_t>(m_) * n_);
  ReferenceInt8Gemm(m_, n_, k_, a_.data(), lda_, quantization, w_.data(), ldw_, scales_.data(),
                    bias_.data(), relu, values.data(), m_);
  std::vector<uint8_t> expected(static_cast<size_t>(ldc_) * n_, 7);
  for (int j = 0; j < n_; ++j) {
    QuantizeToUint8(values.data() + static_cast<size_t>(j) * m_, m_, output_quantization,
                    expected.data() + static_cast<size_t>(j) * ldc_);
  }
  for (int threads : {1, 2}) {
    TestContext context(threads);
    std::vector<uint8_t> c(static_cast<size_t>(ldc_) * n_, 7);
    Int8GemmRequantized(m_, a_.data(), lda_, quantization, Pack(), bias_.data(), relu,
                        output_quantization, c.data(), ldc_, context.compute());
    EXPECT_EQ(c, expected) << threads << " threads";
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, Int8GemmTest,
                         testing::Combine(testing::ValuesIn(kIsas), testing::ValuesIn(Shapes())),
                         Int8GemmTestName);

class Int8GemmExtremesTest : public testing::TestWithParam<Int8Isa> {};

// All-255 activations against all +127 and all -128 weights: the case where a pair of u8 x s8
// products overflows int16 (vpmaddubsw would saturate), up to the deepest k whose sums fit int32.
TEST_P(Int8GemmExtremesTest, SaturationCaseIsExact) {
  const Int8Isa isa = GetParam();
  if (!Int8IsaAvailable(isa)) {
    GTEST_SKIP() << Int8IsaName(isa) << " kernel not tested: this CPU ("
                 << DetectedCpuFeatures().Describe() << ") lacks it";
  }
  for (const Int8Shape shape : {Int8Shape{33, 15, 1001}, Int8Shape{17, 7, kInt8GemmMaxDepth}}) {
    for (const int weight : {127, -128}) {
      for (const int zero_point : {0, 255}) {
        SCOPED_TRACE("m" + std::to_string(shape.m) + " n" + std::to_string(shape.n) + " k" +
                     std::to_string(shape.k) + " weight " + std::to_string(weight) + " zero " +
                     std::to_string(zero_point));
        const std::vector<uint8_t> a(static_cast<size_t>(shape.m) * shape.k, 255);
        const std::vector<int8_t> w(static_cast<size_t>(shape.n) * shape.k,
                                    static_cast<int8_t>(weight));
        const std::vector<float> scales(shape.n, 1.0f);
        const Int8PackedWeights packed(w.data(), shape.n, shape.k, shape.k, scales.data(), isa);
        std::vector<int32_t> sums(static_cast<size_t>(shape.m) * shape.n);
        TestContext context(1);
        Int8GemmSums(shape.m, a.data(), shape.m, zero_point, packed, sums.data(), shape.m,
                     context.compute());
        const int32_t expected = (255 - zero_point) * weight * shape.k;
        for (size_t i = 0; i < sums.size(); ++i) ASSERT_EQ(sums[i], expected) << "element " << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Isas, Int8GemmExtremesTest, testing::ValuesIn(kIsas));

// A Linear at batch 1 as a layer calls it: one row, every leading dimension 1, so that the
// matrix-vector path's epilogue runs along the row.
TEST(Int8Gemm, BatchOneLinearMatchesReference) {
  constexpr int kIn = 517, kOut = 1000;
  std::mt19937 generator(11);
  std::uniform_int_distribution<int> bytes(0, 255), weights(-127, 127);
  std::vector<uint8_t> x(kIn);
  for (uint8_t& value : x) value = static_cast<uint8_t>(bytes(generator));
  std::vector<int8_t> w(static_cast<size_t>(kOut) * kIn);
  for (int8_t& value : w) value = static_cast<int8_t>(weights(generator));
  std::vector<float> scales(kOut), bias(kOut);
  for (int j = 0; j < kOut; ++j) {
    scales[j] = 0.001f + 0.00001f * j;
    bias[j] = 0.5f - 0.001f * j;
  }
  const Uint8Quantization quantization{0.03f, 17};
  for (const Int8Isa isa : kIsas) {
    if (!Int8IsaAvailable(isa)) continue;
    SCOPED_TRACE(Int8IsaName(isa));
    const Int8PackedWeights packed(w.data(), kOut, kIn, kIn, scales.data(), isa);
    for (const Activation activation : {Activation{}, Activation{Activation::Kind::kSilu}}) {
      std::vector<float> expected(kOut), got(kOut, kNan);
      ReferenceInt8Gemm(1, kOut, kIn, x.data(), 1, quantization, w.data(), kIn, scales.data(),
                        bias.data(), activation, expected.data(), 1);
      for (int threads : {1, 2}) {
        TestContext context(threads);
        Int8Gemm(1, x.data(), 1, quantization, packed, bias.data(), activation, got.data(), 1,
                 context.compute());
        ExpectClose(got, expected, 0.0f, 2e-7f, std::to_string(threads) + " threads");
      }
    }
  }
}

// Every kernel's packing, on any CPU: A packed by its pack_rows and W by Int8PackedWeights, then
// multiplied by reading the packed bytes as the layout says (int8_gemm_kernels.hpp: per group,
// 4 bytes per row and per column, bytes or int16 pairs; AMX's columns in blocks of 16 groups),
// must give the reference's sums. On a CPU without VNNI or AMX this checks everything of those
// paths but the vpdpbusd and tdpbsud loops themselves.
TEST(Int8Gemm, PackedLayoutsHoldTheOperands) {
  for (const Int8Isa isa : kIsas) {
    const Int8Kernel& kernel = Int8KernelFor(isa);
    for (const Int8Shape shape : {Int8Shape{1, 1, 1}, Int8Shape{33, 15, 7}, Int8Shape{70, 29, 130},
                                  Int8Shape{5, 3, 1030}}) {
      SCOPED_TRACE(std::string(Int8IsaName(isa)) + " m" + std::to_string(shape.m) + " n" +
                   std::to_string(shape.n) + " k" + std::to_string(shape.k));
      const int m = shape.m, n = shape.n, k = shape.k, lda = m + 2;
      std::mt19937 generator(static_cast<unsigned>(m * 31 + n * 7 + k));
      std::uniform_int_distribution<int> bytes(0, 255), weights(-128, 127);
      std::vector<uint8_t> a(static_cast<size_t>(lda) * k);
      for (uint8_t& value : a) value = static_cast<uint8_t>(bytes(generator));
      std::vector<int8_t> w(static_cast<size_t>(n) * k);
      for (int8_t& value : w) value = static_cast<int8_t>(weights(generator));
      const std::vector<float> scales(n, 1.0f);
      const Int8PackedWeights packed_weights(w.data(), n, k, k, scales.data(), isa);
      const int row_panels = (m + kernel.panel_rows - 1) / kernel.panel_rows;
      std::vector<uint8_t> packed_a(static_cast<size_t>(row_panels) * kernel.PanelBytes(k), 0xee);
      kernel.pack_rows(a.data(), lda, m, k, packed_a.data());
      // One value of a packed operand: element `step` of the group's 4 bytes at `cell`.
      const auto value = [&](const uint8_t* cell, int step, bool is_signed) {
        if (kernel.ElementBytes() == 1) {
          return is_signed ? static_cast<int>(static_cast<int8_t>(cell[step])) : cell[step];
        }
        int16_t wide;
        std::memcpy(&wide, cell + 2 * step, 2);
        return static_cast<int>(wide);
      };
      const int groups = kernel.Groups(k);
      std::vector<int32_t> sums(static_cast<size_t>(m) * n, 0);
      for (int i = 0; i < m; ++i) {
        const uint8_t* a_panel = packed_a.data() + (i / kernel.panel_rows) * kernel.PanelBytes(k);
        for (int j = 0; j < n; ++j) {
          const uint8_t* b_panel =
              packed_weights.data() +
              static_cast<size_t>(j / kernel.panel_columns) * groups * kernel.panel_columns * 4;
          for (int group = 0; group < groups; ++group) {
            const uint8_t* a_cell =
                a_panel +
                (static_cast<size_t>(group) * kernel.panel_rows + i % kernel.panel_rows) * 4;
            const uint8_t* b_cell =
                b_panel + kernel.ColumnCellOffset(group, j % kernel.panel_columns);
            for (int step = 0; step < kernel.group_depth; ++step) {
              sums[i + static_cast<size_t>(j) * m] +=
                  value(a_cell, step, false) * value(b_cell, step, true);
            }
          }
        }
      }
      std::vector<int32_t> expected(static_cast<size_t>(m) * n);
      ReferenceInt8GemmSums(m, n, k, a.data(), lda, 0, w.data(), k, expected.data(), m);
      EXPECT_EQ(sums, expected);
      // The matrix-vector layout: row 0 expanded, read cell by cell against each column's panel.
      if (kernel.expand_vector != nullptr) {
        std::vector<uint8_t> expanded(static_cast<size_t>(groups) * kernel.panel_columns * 4, 0xee);
        kernel.expand_vector(a.data(), lda, k, expanded.data());
        for (int j = 0; j < n; ++j) {
          const uint8_t* b_panel =
              packed_weights.data() +
              static_cast<size_t>(j / kernel.panel_columns) * groups * kernel.panel_columns * 4;
          int32_t sum = 0;
          for (int group = 0; group < groups; ++group) {
            const uint8_t* x_cell =
                expanded.data() + kernel.ExpandedCellOffset(group, j % kernel.panel_columns);
            const uint8_t* b_cell =
                b_panel + kernel.ColumnCellOffset(group, j % kernel.panel_columns);
            for (int step = 0; step < kernel.group_depth; ++step) {
              sum += value(x_cell, step, false) * value(b_cell, step, true);
            }
          }
          EXPECT_EQ(sum, expected[static_cast<size_t>(j) * m]) << "matrix-vector column " << j;
        }
      }
      std::vector<int32_t> weight_sums(n, 0);
      for (int j = 0; j < n; ++j) {
        for (int p = 0; p < k; ++p) weight_sums[j] += w[static_cast<size_t>(j) * k + p];
      }
      EXPECT_EQ(packed_weights.sums(), weight_sums);
    }
  }
}

// Weights packed for a kernel the CPU cannot run are refused when multiplied, with the reason.
TEST(Int8Gemm, UnavailableKernelIsAnError) {
  Int8Isa missing = Int8Isa::kGeneric;  // the fastest kernel this CPU lacks
  for (const Int8Isa isa : kIsas) {
    if (!Int8IsaAvailable(isa)) missing = isa;
  }
  if (missing == Int8Isa::kGeneric) GTEST_SKIP() << "this CPU runs every kernel";
  const std::vector<int8_t> w(8, 1);
  const std::vector<float> scales(2, 1.0f);
  const Int8PackedWeights packed(w.data(), 2, 4, 4, scales.data(), missing);
  const std::vector<uint8_t> a(4, 1);
  std::vector<int32_t> c(2);
  TestContext context(1);
  try {
    Int8GemmSums(1, a.data(), 1, 0, packed, c.data(), 1, context.compute());
    FAIL() << "expected lumen::Error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(Int8IsaName(missing)), std::string::npos)
        << error.what();
  }
}

TEST(Int8Gemm, BestKernelIsAvailable) {
  EXPECT_TRUE(Int8IsaAvailable(BestInt8Isa()));
  EXPECT_TRUE(Int8IsaAvailable(Int8Isa::kGeneric));
  const CpuFeatures& features = DetectedCpuFeatures();
  EXPECT_EQ(Int8IsaAvailable(Int8Isa::kAvx2), features.avx2);
}

TEST(Int8Gemm, BadArgumentsAreErrors) {
  const std::vector<int8_t> w(12, 1);
  const std::vector<float> scales = {1.0f, 0.0f, 1.0f};
  EXPECT_THROW(Int8PackedWeights(w.data(), 3, 4, 4, scales.data(), Int8Isa::kGeneric), Error);
  const std::vector<float> good = {1.0f, 1.0f, 1.0f};
  EXPECT_THROW(Int8PackedWeights(w.data(), 3, 4, 3, good.data(), Int8Isa::kGeneric), Error);
  EXPECT_THROW(Int8PackedWeights(w.data(), 0, 4, 4, good.data(), Int8Isa::kGeneric), Error);
  EXPECT_THROW(Int8PackedWeights(w.data(), 1, kInt8GemmMaxDepth + 1, kInt8GemmMaxDepth + 1,
                                 good.data(), Int8Isa::kGeneric),
               Error);
  const Int8PackedWeights packed(w.data(), 3, 4, 4, good.data(), Int8Isa::kGeneric);
  const std::vector<uint8_t> a(8, 1);
  std::vector<float> c(6);
  TestContext context(1);
  EXPECT_THROW(Int8Gemm(2, a.data(), 2, Uint8Quantization{0.0f, 0}, packed, nullptr, Activation{},
                        c.data(), 2, context.compute()),
               Error);
  EXPECT_THROW(Int8Gemm(2, a.data(), 2, Uint8Quantization{1.0f, 256}, packed, nullptr, Activation{},
                        c.data(), 2, context.compute()),
               Error);
  EXPECT_THROW(Int8Gemm(2, a.data(), 1, Uint8Quantization{}, packed, nullptr, Activation{},
                        c.data(), 2, context.compute()),
               Error);
  EXPECT_THROW(Int8Gemm(2, a.data(), 2, Uint8Quantization{}, Int8PackedWeights(), nullptr,
                        Activation{}, c.data(), 2, context.compute()),
               Error);
}

// Round half to even at every tie, saturation at both ends, infinities, and NaN to the zero point.
TEST(QuantizeToUint8, RoundsHalfToEvenAndSaturates) {
  const float infinity = std::numeric_limits<float>::infinity();
  const std::vector<float> input = {0.5f,        1.5f,     2.5f,      -0.5f,   -1.5f,   -2.5f,
                                    0.49999997f, 127.0f,   127.5f,    -128.0f, -129.0f, 1e9f,
                                    -1e9f,       infinity, -infinity, kNan};
  const std::vector<int> expected = {128, 130, 130, 128, 126, 126, 128, 255,
                                     255, 0,   0,   255, 0,   255, 0,   128};
  std::vector<uint8_t> output(input.size());
  QuantizeToUint8(input.data(), input.size(), Uint8Quantization{1.0f, 128}, output.data());
  for (size_t i = 0; i < input.size(); ++i) {
    EXPECT_EQ(output[i], expected[i]) << "input " << input[i];
  }
  // With a scale: x / 0.5 = 2x, then the zero point.
  const std::vector<float> scaled = {0.25f, 0.75f, 1.0f, -0.25f};
  QuantizeToUint8(scaled.data(), scaled.size(), Uint8Quantization{0.5f, 3}, output.data());
  EXPECT_EQ(output[0], 3);  // 0.5 -> 0
  EXPECT_EQ(output[1], 5);  // 1.5 -> 2
  EXPECT_EQ(output[2], 5);
  EXPECT_EQ(output[3], 3);  // -0.5 -> -0
  EXPECT_THROW(QuantizeToUint8(input.data(), 1, Uint8Quantization{-1.0f, 0}, output.data()), Error);
  EXPECT_THROW(QuantizeToUint8(input.data(), 1, Uint8Quantization{kNan, 0}, output.data()), Error);
  EXPECT_THROW(QuantizeToUint8(input.data(), 1, Uint8Quantization{1.0f, -1}, output.data()), Error);
}

TEST(QuantizeToUint8, ChosenRangeMapsOntoTheBytes) {
  const Uint8Quantization relu = ChooseUint8Quantization(0.0f, 6.0f);
  EXPECT_EQ(relu.zero_point, 0);
  EXPECT_FLOAT_EQ(relu.scale, 6.0f / 255.0f);
  const Uint8Quantization both = ChooseUint8Quantization(-1.0f, 3.0f);
  EXPECT_EQ(both.zero_point, 64);  // round(1 / (4 / 255)) = round(63.75)
  const std::vector<float> ends = {-1.0f, 0.0f, 3.0f};
  std::vector<uint8_t> output(3);
  QuantizeToUint8(ends.data(), ends.size(), both, output.data());
  EXPECT_EQ(output[1], 64);  // zero is exact
  EXPECT_LE(output[0], 1);
  EXPECT_EQ(output[2], 255);
  const Uint8Quantization positive = ChooseUint8Quantization(2.0f, 4.0f);  // widened to [0, 4]
  EXPECT_EQ(positive.zero_point, 0);
  EXPECT_FLOAT_EQ(positive.scale, 4.0f / 255.0f);
  EXPECT_THROW(ChooseUint8Quantization(1.0f, -1.0f), Error);
  EXPECT_THROW(ChooseUint8Quantization(0.0f, std::numeric_limits<float>::infinity()), Error);
}

TEST(QuantizeWeightsPerChannel, LargestMagnitudeBecomes127) {
  const std::vector<float> weights = {0.5f, -1.0f, 0.25f, 0.0f, 0.0f, 0.0f, 2.0f, 1.0f, -0.01f};
  std::vector<int8_t> quantized;
  std::vector<float> scales;
  QuantizeWeightsPerChannel(weights.data(), 3, 3, &quantized, &scales);
  EXPECT_FLOAT_EQ(scales[0], 1.0f / 127.0f);
  EXPECT_EQ(quantized[0], 64);  // 63.5 -> 64 (even)
  EXPECT_EQ(quantized[1], -127);
  EXPECT_EQ(quantized[2], 32);  // 31.75
  EXPECT_EQ(scales[1], 1.0f);   // an all-zero channel
  EXPECT_EQ(quantized[3], 0);
  EXPECT_EQ(quantized[6], 127);
  EXPECT_EQ(quantized[7], 64);  // 63.5 -> 64
  EXPECT_EQ(quantized[8], -1);  // -0.635
  const std::vector<float> bad = {1.0f, kNan};
  EXPECT_THROW(QuantizeWeightsPerChannel(bad.data(), 1, 2, &quantized, &scales), Error);
}

// Each channel's values times its own scale: three channels of two, distinct scales, so that a
// value taken with its neighbour channel's scale shows.
TEST(DequantizeWeightsPerChannel, ScalesEachChannelByItsOwnScale) {
  const std::vector<int8_t> quantized = {1, -2, 3, 4, -127, 127};
  const std::vector<float> scales = {0.5f, 2.0f, 0.25f};
  const std::vector<float> expected = {0.5f, -1.0f, 6.0f, 8.0f, -31.75f, 31.75f};
  EXPECT_EQ(DequantizeWeightsPerChannel(quantized, scales), expected);
}

}  // namespace
}  // namespace lumen
