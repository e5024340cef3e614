// The bf16 GEMM's AVX512-BF16 micro-kernel: vdpbf16ps adds, to each fp32 lane, the products of
// one pair of bf16 activations (a row's cell) and one pair of bf16 weights (the column's cell,
// broadcast): 32 rows by 14 columns, two k-steps per instruction.
//
// Compiled with a target attribute, not with the library's flags, so that a build on a machine
// without AVX512-BF16 still contains it; math/bf16_gemm.cpp runs it only where
// DetectedCpuFeatures() allows.
#include <immintrin.h>

#include "math/bf16_gemm.hpp"
#include "math/bf16_gemm_kernels.hpp"

namespace lumen {

static_assert(kBf16PanelRows == 32, "two vectors of 16 fp32 lanes");

// Per pair: 2 loads of A (32 row cells), and per column one broadcast weight cell and two
// vdpbf16ps: 28 accumulators + 2 of A + 1 weight = 31 of the 32 vector registers.
__attribute__((target("avx512f,avx512bf16"))) void Avx512Bf16MicroKernel(
    int pairs, const uint32_t* a, const uint32_t* b, float* sums, int ld, bool accumulate) {
  __m512 sum0[kBf16PanelColumns];
  __m512 sum1[kBf16PanelColumns];
#pragma GCC unroll 16
  for (int j = 0; j < kBf16PanelColumns; ++j) {
    if (accumulate) {
      sum0[j] = _mm512_loadu_ps(sums + j * ld);
      sum1[j] = _mm512_loadu_ps(sums + j * ld + 16);
    } else {
      sum0[j] = _mm512_setzero_ps();
      sum1[j] = _mm512_setzero_ps();
    }
  }
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
    _mm512_storeu_ps(sums + j * ld, sum0[j]);
    _mm512_storeu_ps(sums + j * ld + 16, sum1[j]);
  }
}

}  // namespace lumen
