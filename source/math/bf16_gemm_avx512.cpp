// The bf16 GEMM's AVX512-BF16 micro-kernel: vdpbf16ps adds, to each fp32 lane, the products of
// one pair of bf16 activations (a row's cell) and one pair of bf16 weights (the column's cell,
// broadcast): 32 rows by 14 columns, two k-steps per instruction.
//
// Compiled with a target attribute, not with the library's flags, so that a build on a machine
// without AVX512-BF16 still contains it; math/bf16_gemm.cpp runs it only where
// DetectedCpuFeatures() allows.
#include <immintrin.h>

#include <algorithm>
#include <chrono>

#include "math/bf16_gemm.hpp"
#include "math/bf16_gemm_kernels.hpp"

namespace lumen {

static_assert(kBf16PanelRows == 32, "two vectors of 16 fp32 lanes");

// Per pair: 2 loads of A (32 row cells), and per column one broadcast weight cell and two
// vdpbf16ps: 28 accumulators + 2 of A + 1 weight = 31 of the 32 vector registers.
__attribute__((target("avx512f,avx512bf16"))) void Avx512Bf16MicroKernel(
    int pairs, const uint32_t* a, const uint32_t* b, float* sums, int ld, bool accumulate) {
  // The tile's sums start from zero, and the sums already there (earlier slices of k) are added
  // once at the end.
  __m512 sum0[kBf16PanelColumns];
  __m512 sum1[kBf16PanelColumns];
#pragma GCC unroll 16
  for (int j = 0; j < kBf16PanelColumns; ++j) sum0[j] = sum1[j] = _mm512_setzero_ps();
  for (int pair = 0; pair < pairs; ++pair, a += kBf16PanelRows, b += kBf16PanelColumns) {
    // The cells are bit patterns of bf16 pairs: reinterpreted, not converted.
    const __m512bh a0 = (__m512bh)_mm512_loadu_si512(a);
    const __m512bh a1 = (__m512bh)_mm512_loadu_si512(a + 16);
#pragma GCC unroll 16
    for (int j = 0; j < kBf16PanelColumns; ++j) {
      const __m512bh weight = (__m512bh)_mm512_set1_epi32(static_cast<int>(b[j]));
      sum0[j] = _mm512_dpbf16_ps(sum0[j], a0, weight);
      sum1[j] = _mm512_dpbf16_ps(sum1[j], a1, weight);
    }
  }
#pragma GCC unroll 16
  for (int j = 0; j < kBf16PanelColumns; ++j) {
    float* column = sums + j * ld;
    if (accumulate) {
      sum0[j] = _mm512_add_ps(sum0[j], _mm512_loadu_ps(column));
      sum1[j] = _mm512_add_ps(sum1[j], _mm512_loadu_ps(column + 16));
    }
    _mm512_storeu_ps(column, sum0[j]);
    _mm512_storeu_ps(column + 16, sum1[j]);
  }
}

// Per pair: the panel's 14 weight cells (a masked load of 16 lanes) times the row's cell,
// broadcast. Two accumulators, alternate pairs, so that each vdpbf16ps waits for the one two
// before it, not the one before.
__attribute__((target("avx512f,avx512bf16"))) void Avx512Bf16PanelVector(int pairs,
                                                                         const uint32_t* row,
                                                                         const uint32_t* panel,
                                                                         float* sums) {
  constexpr __mmask16 kColumns = (1u << kBf16PanelColumns) - 1;
  __m512 even = _mm512_setzero_ps();
  __m512 odd = _mm512_setzero_ps();
  int pair = 0;
  for (; pair + 1 < pairs; pair += 2) {
    const __m512i weights0 = _mm512_maskz_loadu_epi32(kColumns, panel + pair * kBf16PanelColumns);
    const __m512i weights1 =
        _mm512_maskz_loadu_epi32(kColumns, panel + (pair + 1) * kBf16PanelColumns);
    even = _mm512_dpbf16_ps(even, (__m512bh)weights0,
                            (__m512bh)_mm512_set1_epi32(static_cast<int>(row[pair])));
    odd = _mm512_dpbf16_ps(odd, (__m512bh)weights1,
                           (__m512bh)_mm512_set1_epi32(static_cast<int>(row[pair + 1])));
  }
  if (pair < pairs) {
    const __m512i weights = _mm512_maskz_loadu_epi32(kColumns, panel + pair * kBf16PanelColumns);
    even = _mm512_dpbf16_ps(even, (__m512bh)weights,
                            (__m512bh)_mm512_set1_epi32(static_cast<int>(row[pair])));
  }
  _mm512_mask_storeu_ps(sums, kColumns, _mm512_add_ps(even, odd));
}

namespace {

constexpr int kProbeChains = 16;   // independent accumulators: latency never limits the rate
constexpr int kProbeSteps = 4096;  // steps per timed run: 65,536 instructions, well under 1 ms

// The probe measures the instructions, not the build: optimised and uninstrumented in the
// sanitizer builds too (at -O1 under ThreadSanitizer its accumulators stayed on the instrumented
// stack and the FMA measured 0.19 products per nanosecond instead of 80). Clang has no optimize
// attribute; its sanitizer builds only skip the instrumentation.
#if defined(__clang__)
#define LUMEN_PROBE_BUILD no_sanitize("thread", "address", "undefined"), noinline
#else
#define LUMEN_PROBE_BUILD \
  optimize("O2"), no_sanitize_thread, no_sanitize_address, no_sanitize_undefined, noinline
#endif

// Seconds that `run` takes, best of five.
template <typename Run>
double BestSeconds(Run run) {
  double best = 1e30;
  for (int attempt = 0; attempt < 5; ++attempt) {
    const auto start = std::chrono::steady_clock::now();
    run();
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    best = std::min(best, elapsed.count());
  }
  return best;
}

// kProbeSteps rounds of kProbeChains vdpbf16ps; the sum is returned so that none is dropped.
__attribute__((target("avx512f,avx512bf16"), LUMEN_PROBE_BUILD)) float RunBf16Chains() {
  __m512 sums[kProbeChains];
  for (__m512& sum : sums) sum = _mm512_setzero_ps();
  __m512bh values = (__m512bh)_mm512_set1_epi32(0x3F803F80);  // the bf16 pair (1, 1)
  for (int step = 0; step < kProbeSteps; ++step) {
#pragma GCC unroll 16
    for (__m512& sum : sums) sum = _mm512_dpbf16_ps(sum, values, values);
    __asm__ volatile("" : "+v"(values));  // an operand the compiler cannot hoist
  }
  __m512 total = sums[0];
  for (int chain = 1; chain < kProbeChains; ++chain) total = _mm512_add_ps(total, sums[chain]);
  return _mm512_cvtss_f32(total);  // one lane is enough to keep every chain
}

// The same with vfmadd231ps.
__attribute__((target("avx512f"), LUMEN_PROBE_BUILD)) float RunFp32Chains() {
  __m512 sums[kProbeChains];
  for (__m512& sum : sums) sum = _mm512_setzero_ps();
  __m512 values = _mm512_set1_ps(1.0f);
  for (int step = 0; step < kProbeSteps; ++step) {
#pragma GCC unroll 16
    for (__m512& sum : sums) sum = _mm512_fmadd_ps(values, values, sum);
    __asm__ volatile("" : "+v"(values));
  }
  __m512 total = sums[0];
  for (int chain = 1; chain < kProbeChains; ++chain) total = _mm512_add_ps(total, sums[chain]);
  return _mm512_cvtss_f32(total);  // one lane is enough to keep every chain
}

#undef LUMEN_PROBE_BUILD

}  // namespace

Bf16ProductRates MeasureAvx512Bf16ProductRates() {
  volatile float sink = 0.0f;
  // Warm-up: the 512-bit units power up on first use, and until then run slower (the first
  // timed run here once measured vdpbf16ps at 19 products/ns, the next ones at 42).
  for (int round = 0; round < 4; ++round) sink = sink + RunBf16Chains() + RunFp32Chains();
  const double bf16_seconds = BestSeconds([&] { sink = sink + RunBf16Chains(); });
  const double fp32_seconds = BestSeconds([&] { sink = sink + RunFp32Chains(); });
  constexpr double kInstructions = double{kProbeChains} * kProbeSteps;
  Bf16ProductRates rates;
  rates.bf16 = kInstructions * 32 / (bf16_seconds * 1e9);  // 16 lanes x 2 products
  rates.fp32 = kInstructions * 16 / (fp32_seconds * 1e9);
  return rates;
}

}  // namespace lumen
