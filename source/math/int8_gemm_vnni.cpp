// The byte-quad layout of the int8 GEMM (see int8_gemm_kernels.hpp) and its AVX-512 VNNI
// micro-kernel: vpdpbusd multiplies 4 unsigned activation bytes by 4 signed weight bytes and adds
// the four products to an int32 lane in one instruction, without intermediate saturation, so
// there is nothing to widen: 64 multiply-adds per instruction on 512-bit registers.
//
// Compiled with a target attribute, not with the library's flags, so that a build on a machine
// without VNNI still contains it; Int8KernelFor runs it only where DetectedCpuFeatures() allows.
#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "math/int8_gemm_kernels.hpp"

namespace lumen {
namespace {

// The tile: 32 rows (two vectors of 16 int32) by 14 columns, as math/packed_gemm on AVX-512:
// 28 accumulators + 2 of A + 1 broadcast weight quad = 31 of the 32 vector registers.
constexpr int kRows = 32;
constexpr int kColumns = 14;

// Packs byte quads: for each group of k-steps p..p+3 and row i, a[i, p..p+3], zero beyond m and k.
void PackRowsByteQuads(const uint8_t* a, int lda, int m, int k, uint8_t* packed) {
  PackRowPanels<kRows, 4>(a, lda, m, k, packed,
                          [=](uint8_t* target, const uint8_t* column, int valid, int p) {
                            PackByteQuadGroup(target, column, lda, valid, p, k);
                          });
}

// Per group: 2 loads of A (32 rows of 4 bytes), and per column one broadcast weight quad and two
// vpdpbusd.
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void VnniMicroKernel(
    int groups, const uint8_t* a, const uint8_t* b, int32_t* sums, int ld, bool accumulate) {
  __m512i sum0[kColumns];
  __m512i sum1[kColumns];
#pragma GCC unroll 16
  for (int j = 0; j < kColumns; ++j) {
    if (accumulate) {
      sum0[j] = _mm512_loadu_si512(sums + j * ld);
      sum1[j] = _mm512_loadu_si512(sums + j * ld + 16);
    } else {
      sum0[j] = _mm512_setzero_si512();
      sum1[j] = _mm512_setzero_si512();
    }
  }
  for (int group = 0; group < groups; ++group, a += kRows * 4, b += kColumns * 4) {
    const __m512i a0 = _mm512_loadu_si512(a);
    const __m512i a1 = _mm512_loadu_si512(a + 64);
#pragma GCC unroll 16
    for (int j = 0; j < kColumns; ++j) {
      int32_t quad;
      std::memcpy(&quad, b + j * 4, 4);
      const __m512i weight = _mm512_set1_epi32(quad);
      sum0[j] = _mm512_dpbusd_epi32(sum0[j], a0, weight);  // unsigned A, signed weights
      sum1[j] = _mm512_dpbusd_epi32(sum1[j], a1, weight);
    }
  }
#pragma GCC unroll 16
  for (int j = 0; j < kColumns; ++j) {
    _mm512_storeu_si512(sums + j * ld, sum0[j]);
    _mm512_storeu_si512(sums + j * ld + 16, sum1[j]);
  }
}

// Adds the products of cells [first, cells) (4 unsigned row bytes times 4 signed weights each) to
// the sum of their column, cell % kColumns.
void AddQuadCellProducts(int first, int cells, const uint8_t* expanded, const uint8_t* panel,
                         int32_t* sums) {
  for (int cell = first; cell < cells; ++cell) {
    for (int step = 0; step < 4; ++step) {
      sums[cell % kColumns] += expanded[cell * 4 + step] *
                               static_cast<int32_t>(static_cast<int8_t>(panel[cell * 4 + step]));
    }
  }
}

// As int8_gemm_avx2.cpp's Avx2PanelVector, with vpdpbusd: the panel and the expanded row as one
// stream of 4-byte cells, 112 at a time into seven vectors of 16 lanes (112 = 8 * kColumns: lane l
// always holds column l % kColumns), then the lanes folded into the columns.
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void VnniPanelVector(int groups,
                                                                            const uint8_t* expanded,
                                                                            const uint8_t* panel,
                                                                            int32_t* sums) {
  constexpr int kVectors = 7;
  constexpr int kCellsPerStep = kVectors * 16;
  static_assert(kCellsPerStep % kColumns == 0, "lanes must stay in their column");
  const int cells = groups * kColumns;
  __m512i sum[kVectors];
#pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) sum[v] = _mm512_setzero_si512();
  int cell = 0;
  for (; cell + kCellsPerStep <= cells; cell += kCellsPerStep) {
#pragma GCC unroll 8
    for (int v = 0; v < kVectors; ++v) {
      const size_t offset = static_cast<size_t>(cell + 16 * v) * 4;
      const __m512i values = _mm512_loadu_si512(expanded + offset);
      const __m512i weights = _mm512_loadu_si512(panel + offset);
      sum[v] = _mm512_dpbusd_epi32(sum[v], values, weights);  // unsigned row, signed weights
    }
  }
  int32_t lanes[kCellsPerStep];
#pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) _mm512_storeu_si512(lanes + 16 * v, sum[v]);
#pragma GCC unroll 16
  for (int j = 0; j < kColumns; ++j) {
    int32_t total = 0;
#pragma GCC unroll 8
    for (int t = 0; t < kCellsPerStep / kColumns; ++t) total += lanes[j + t * kColumns];
    sums[j] = total;
  }
  AddQuadCellProducts(cell, cells, expanded, panel, sums);
}

}  // namespace

void PackByteQuadGroup(uint8_t* target, const uint8_t* column, int lda, int valid, int p, int k) {
  static_assert(kByteQuadRows == kRows, "VNNI's row panels");
#if defined(__SSE2__)
  if (valid == kRows && p + 3 < k) {
    // Per 16 rows: interleave columns 0/1 and 2/3 byte by byte, then the two results int16 by
    // int16, which puts each row's 4 bytes together: rows 0-3, 4-7, 8-11, 12-15.
    for (int half = 0; half < kRows; half += 16) {
      __m128i x[4];
      for (int e = 0; e < 4; ++e) {
        x[e] = _mm_loadu_si128(
            reinterpret_cast<const __m128i*>(column + static_cast<size_t>(e) * lda + half));
      }
      const __m128i low01 = _mm_unpacklo_epi8(x[0], x[1]);
      const __m128i low23 = _mm_unpacklo_epi8(x[2], x[3]);
      const __m128i high01 = _mm_unpackhi_epi8(x[0], x[1]);
      const __m128i high23 = _mm_unpackhi_epi8(x[2], x[3]);
      __m128i* out = reinterpret_cast<__m128i*>(target + half * 4);
      _mm_storeu_si128(out + 0, _mm_unpacklo_epi16(low01, low23));
      _mm_storeu_si128(out + 1, _mm_unpackhi_epi16(low01, low23));
      _mm_storeu_si128(out + 2, _mm_unpacklo_epi16(high01, high23));
      _mm_storeu_si128(out + 3, _mm_unpackhi_epi16(high01, high23));
    }
    return;
  }
#endif
  for (int i = 0; i < kRows; ++i) {
    for (int e = 0; e < 4; ++e) {
      target[i * 4 + e] =
          i < valid && p + e < k ? column[static_cast<size_t>(e) * lda + i] : uint8_t{0};
    }
  }
}

const Int8Kernel& Avx512VnniInt8Kernel() {
  static const Int8Kernel kernel{kRows,
                                 kColumns,
                                 4,
                                 1,
                                 PackRowsByteQuads,
                                 VnniMicroKernel,
                                 ExpandVectorGroups<kColumns, 4>,
                                 VnniPanelVector,
                                 nullptr,
                                 nullptr};
  return kernel;
}

}  // namespace lumen
