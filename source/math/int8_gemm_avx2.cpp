// The int16-pair layout of the int8 GEMM (see int8_gemm_kernels.hpp) and its two micro-kernels:
// AVX2 (vpmaddwd) and generic C++, the reference-like fallback for CPUs without AVX2.
//
// Why widen to int16 instead of using vpmaddubsw on the bytes: vpmaddubsw adds two adjacent
// u8 x s8 products into an int16 with saturation, and 255 * 127 + 255 * 127 = 64770 does not fit
// (nor does 255 * -128 * 2): an activation of 255 against weights of 127 gives a wrong sum.
// The ways around it cost accuracy (weights limited to [-63, 63], or 7-bit activations, which the
// caller's uint8 data does not promise) or work (splitting an operand into two vpmaddubsw).
//
// What exactness costs, measured by BM_Int8InnerLoop (bench/bench_quantized.cpp: this file's
// 16 x 6 tile against the same tile with vpmaddubsw + vpmaddwd by ones, operands in L1, at 1
// thread, AMD EPYC Zen 3, AVX2, on a machine shared with two builds; 8 runs of 5 repetitions,
// medians): widened 116-151 GOP/s, saturating 124-160 GOP/s, the saturating loop 0.84-1.37x as
// fast as the widened one in the same run (median 1.04x). About equal: vpmaddubsw handles twice
// the products per instruction but each result still needs a vpmaddwd to reach int32, so both
// loops are bound by the multiply pipes. (A standalone copy of the two loops, placed differently
// in memory, once measured the saturating one 2x faster: loop placement matters here as much as
// the instruction choice.) So exact it is.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "math/int8_gemm_kernels.hpp"

namespace lumen {
namespace {

// The tile: 16 rows (two vectors of 8 int32) by 6 columns, as math/packed_gemm on AVX2: 12
// accumulators + 2 of A + 1 broadcast weight pair + 1 product = the 16 vector registers.
constexpr int kRows = 16;
constexpr int kColumns = 6;

// Packs int16 pairs: for each pair of k-steps (p, p + 1) and row i, (a[i, p], a[i, p + 1]) as
// two little-endian int16, zero beyond m and k.
void PackRowsInt16Pairs(const uint8_t* a, int lda, int m, int k, uint8_t* packed) {
  PackRowPanels<kRows, 2>(
      a, lda, m, k, packed, [=](uint8_t* target, const uint8_t* column0, int valid, int p) {
        const uint8_t* column1 = column0 + lda;
#if defined(__SSE2__)
        if (valid == kRows && p + 1 < k) {
          // Interleave the two columns' bytes, then widen each byte to int16 by interleaving it
          // with a zero byte: rows 0-3, 4-7, 8-11, 12-15, 16 bytes each.
          const __m128i zero = _mm_setzero_si128();
          const __m128i x0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(column0));
          const __m128i x1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(column1));
          const __m128i low = _mm_unpacklo_epi8(x0, x1);
          const __m128i high = _mm_unpackhi_epi8(x0, x1);
          __m128i* out = reinterpret_cast<__m128i*>(target);
          _mm_storeu_si128(out + 0, _mm_unpacklo_epi8(low, zero));
          _mm_storeu_si128(out + 1, _mm_unpackhi_epi8(low, zero));
          _mm_storeu_si128(out + 2, _mm_unpacklo_epi8(high, zero));
          _mm_storeu_si128(out + 3, _mm_unpackhi_epi8(high, zero));
          return;
        }
#endif
        for (int i = 0; i < kRows; ++i) {
          const uint16_t first_value = i < valid && p < k ? column0[i] : 0;
          const uint16_t second_value = i < valid && p + 1 < k ? column1[i] : 0;
          std::memcpy(target + i * 4, &first_value, 2);
          std::memcpy(target + i * 4 + 2, &second_value, 2);
        }
      });
}

// The plain C++ kernel: the same layout, in GCC's portable vectors of 8 int32 (as
// math/packed_gemm's kernel), which compile to whatever the build targets (two SSE2 registers
// each on a baseline x86-64). Each group's row pairs are split into two int32 vectors first; the
// products are then whole-vector multiplies, exact in int32 like vpmaddwd's.
using Int32Vector = int32_t __attribute__((vector_size(8 * sizeof(int32_t))));

void GenericMicroKernel(int groups, const uint8_t* a, const uint8_t* b, int32_t* sums, int ld,
                        bool accumulate) {
  constexpr int kVectors = kRows / 8;
  Int32Vector tile[kColumns][kVectors];
#pragma GCC unroll 8
  for (int j = 0; j < kColumns; ++j) {
    for (int v = 0; v < kVectors; ++v) {
      tile[j][v] = Int32Vector{};
      if (accumulate) std::memcpy(&tile[j][v], sums + j * ld + 8 * v, sizeof(Int32Vector));
    }
  }
  for (int group = 0; group < groups; ++group, a += kRows * 4, b += kColumns * 4) {
    int16_t pairs[kRows][2];
    int16_t weights[kColumns][2];
    std::memcpy(pairs, a, sizeof(pairs));
    std::memcpy(weights, b, sizeof(weights));
    // Lanes gathered in plain arrays, then copied into the vectors whole (written lane by lane,
    // GCC on an AVX-512 build warned that the vectors were read uninitialised).
    Int32Vector first[kVectors];
    Int32Vector second[kVectors];
    for (int v = 0; v < kVectors; ++v) {
      int32_t first_lanes[8];
      int32_t second_lanes[8];
      for (int lane = 0; lane < 8; ++lane) {
        first_lanes[lane] = pairs[8 * v + lane][0];
        second_lanes[lane] = pairs[8 * v + lane][1];
      }
      std::memcpy(&first[v], first_lanes, sizeof(Int32Vector));
      std::memcpy(&second[v], second_lanes, sizeof(Int32Vector));
    }
#pragma GCC unroll 8
    for (int j = 0; j < kColumns; ++j) {
      const int32_t weight0 = weights[j][0];
      const int32_t weight1 = weights[j][1];
      for (int v = 0; v < kVectors; ++v) tile[j][v] += first[v] * weight0 + second[v] * weight1;
    }
  }
  for (int j = 0; j < kColumns; ++j) std::memcpy(sums + j * ld, tile[j], sizeof(tile[j]));
}

// The AVX2 kernel: per group, 2 loads of A (16 rows of one int16 pair), and per column one
// broadcast weight pair and two vpmaddwd (each 8 lanes of a0*w0 + a1*w1) added to the sums.
__attribute__((target("avx2"))) void Avx2MicroKernel(int groups, const uint8_t* a, const uint8_t* b,
                                                     int32_t* sums, int ld, bool accumulate) {
  __m256i sum0[kColumns];
  __m256i sum1[kColumns];
#pragma GCC unroll 8
  for (int j = 0; j < kColumns; ++j) {
    if (accumulate) {
      sum0[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sums + j * ld));
      sum1[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sums + j * ld + 8));
    } else {
      sum0[j] = _mm256_setzero_si256();
      sum1[j] = _mm256_setzero_si256();
    }
  }
  for (int group = 0; group < groups; ++group, a += kRows * 4, b += kColumns * 4) {
    const __m256i a0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a));
    const __m256i a1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + 32));
#pragma GCC unroll 8
    for (int j = 0; j < kColumns; ++j) {
      int32_t pair;
      std::memcpy(&pair, b + j * 4, 4);
      const __m256i weight = _mm256_set1_epi32(pair);
      sum0[j] = _mm256_add_epi32(sum0[j], _mm256_madd_epi16(a0, weight));
      sum1[j] = _mm256_add_epi32(sum1[j], _mm256_madd_epi16(a1, weight));
    }
  }
#pragma GCC unroll 8
  for (int j = 0; j < kColumns; ++j) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums + j * ld), sum0[j]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums + j * ld + 8), sum1[j]);
  }
}

// Adds the products of cells [first, cells) (one int16 pair of the panel times one of the expanded
// row each) to the sum of their column, cell % kColumns.
void AddCellProducts(int first, int cells, const uint8_t* expanded, const uint8_t* panel,
                     int32_t* sums) {
  for (int cell = first; cell < cells; ++cell) {
    int16_t weights[2];
    int16_t values[2];
    std::memcpy(weights, panel + cell * 4, 4);
    std::memcpy(values, expanded + cell * 4, 4);
    sums[cell % kColumns] += weights[0] * values[0] + weights[1] * values[1];
  }
}

void GenericPanelVector(int groups, const uint8_t* expanded, const uint8_t* panel, int32_t* sums) {
  for (int j = 0; j < kColumns; ++j) sums[j] = 0;
  AddCellProducts(0, groups * kColumns, expanded, panel, sums);
}

// The panel and the expanded row as one stream of int32 cells, 24 at a time into three vectors
// (24 is a multiple of kColumns: lane l of the three always holds column l % kColumns), then the
// lanes folded into the columns. Each weight is read once: the loop streams the panel.
__attribute__((target("avx2"))) void Avx2PanelVector(int groups, const uint8_t* expanded,
                                                     const uint8_t* panel, int32_t* sums) {
  constexpr int kCellsPerStep = 24;
  static_assert(kCellsPerStep % kColumns == 0, "lanes must stay in their column");
  const int cells = groups * kColumns;
  __m256i sum[3] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
  int cell = 0;
  for (; cell + kCellsPerStep <= cells; cell += kCellsPerStep) {
    // The weights stream from L3 or memory: ask for them well ahead (1 KB, ~11 steps).
    __builtin_prefetch(panel + static_cast<size_t>(cell) * 4 + 1024);
    __builtin_prefetch(panel + static_cast<size_t>(cell) * 4 + 1024 + 64);
#pragma GCC unroll 3
    for (int v = 0; v < 3; ++v) {
      const size_t offset = static_cast<size_t>(cell + 8 * v) * 4;
      const __m256i weights = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + offset));
      const __m256i values =
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(expanded + offset));
      sum[v] = _mm256_add_epi32(sum[v], _mm256_madd_epi16(weights, values));
    }
  }
  int32_t lanes[kCellsPerStep];
  for (int v = 0; v < 3; ++v)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(lanes + 8 * v), sum[v]);
    // Column j's lanes are j, j + 6, j + 12, j + 18: spelled out, since a rolled loop over the 24
    // lanes (with its lane % 6) took a fifth of a 512-deep panel's time.
#pragma GCC unroll 6
  for (int j = 0; j < kColumns; ++j) {
    sums[j] = lanes[j] + lanes[j + kColumns] + lanes[j + 2 * kColumns] + lanes[j + 3 * kColumns];
  }
  static_assert(kCellsPerStep == 4 * kColumns, "the fold adds four lanes per column");
  AddCellProducts(cell, cells, expanded, panel, sums);
}

}  // namespace

const Int8Kernel& GenericInt8Kernel() {
  static const Int8Kernel kernel{kRows,
                                 kColumns,
                                 2,
                                 1,
                                 PackRowsInt16Pairs,
                                 GenericMicroKernel,
                                 ExpandVectorGroups<kColumns, 2>,
                                 GenericPanelVector,
                                 nullptr,
                                 nullptr};
  return kernel;
}

const Int8Kernel& Avx2Int8Kernel() {
  static const Int8Kernel kernel{kRows,
                                 kColumns,
                                 2,
                                 1,
                                 PackRowsInt16Pairs,
                                 Avx2MicroKernel,
                                 ExpandVectorGroups<kColumns, 2>,
                                 Avx2PanelVector,
                                 nullptr,
                                 nullptr};
  return kernel;
}

}  // namespace lumen
