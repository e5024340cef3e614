// The int8 GEMM's AMX kernel: tdpbusd multiplies a tile of 16 rows x 64 unsigned activation bytes
// by a tile of 16 groups x 16 columns of signed weight quads, 16 x 16 x 64 = 16384 multiply-adds
// into a 16 x 16 int32 tile in one instruction (VNNI's vpdpbusd makes 64).
//
// tdpbusd fixes which operand is which: the unsigned bytes (our activations) are the first, read
// as rows, so an activation tile row is one row of A's 64 k-steps, and the sums come out with a
// row of A per tile row. The vector kernels' layouts have it the other way round (per group, the
// cells of every row; sums column-major, a column of C per output channel), so this kernel
// rearranges at both ends: the packing lays out blocks of 16 groups row by row (Int8Kernel's
// block_groups), and the micro-kernel transposes its sums into C's columns. Both are 16 x 16
// transposes of int32 in registers, a few hundred cycles against the thousands of cycles of
// products they serve (and the micro-kernel runs over the whole depth, so it transposes once per
// tile). The weights keep the byte-quad layout with 32 columns per panel: a weight tile is 16
// groups of 16 columns (half a panel's row, at a stride of the panel's 128 bytes).
//
// Compiled with target attributes, not with the library's flags, so that every build contains it;
// Int8KernelFor runs it only where DetectedCpuFeatures() reports amx_int8 (which includes Linux's
// permission to use the tile registers), between AmxTilesBegin() and AmxTilesEnd().
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>

#include "math/amx_tiles.hpp"
#include "math/int8_gemm_kernels.hpp"

namespace lumen {
namespace {

// The tile of sums: 32 rows of A by 32 output channels, four 16 x 16 tiles.
constexpr int kRows = 32;
constexpr int kColumns = 32;
// Groups per block: a tile row holds 16 byte quads.
constexpr int kBlockGroups = 16;
// Bytes of one block of a row panel, and of one block of groups of a weight panel.
constexpr int kBlockBytes = kBlockGroups * kRows * 4;
static_assert(kRows == kByteQuadRows, "packing starts from VNNI's groups");

// The permutation indices of Transpose16x16's rounds: for round b (s = 2^b) and column c, where
// the new row r (bit b clear) and the new row r | s take element c from: row r's c or row
// (r | s)'s c ^ s (an index of 16 and up names the second operand's lanes), and row r's c | s or
// row (r | s)'s c.
struct TransposeIndices {
  std::array<std::array<int32_t, 16>, 4> low{};
  std::array<std::array<int32_t, 16>, 4> high{};
};
constexpr TransposeIndices MakeTransposeIndices() {
  TransposeIndices indices;
  for (int bit = 0; bit < 4; ++bit) {
    const int s = 1 << bit;
    for (int c = 0; c < 16; ++c) {
      indices.low[bit][c] = (c & s) != 0 ? 16 + (c ^ s) : c;
      indices.high[bit][c] = (c & s) != 0 ? 16 + c : (c | s);
    }
  }
  return indices;
}
alignas(64) constexpr TransposeIndices kTransposeIndices = MakeTransposeIndices();

// Transposes the 16 x 16 int32 matrix whose row r is v[r], in place: round b swaps bit b of the
// row index with bit b of the column index, each pair of rows r and r | s exchanging the elements
// that cross; after the four rounds element (r, c) is at (c, r).
__attribute__((target("avx512f"))) inline void Transpose16x16(__m512i v[16]) {
#pragma GCC unroll 4
  for (int bit = 0; bit < 4; ++bit) {
    const int s = 1 << bit;
    const __m512i low = _mm512_load_si512(kTransposeIndices.low[bit].data());
    const __m512i high = _mm512_load_si512(kTransposeIndices.high[bit].data());
#pragma GCC unroll 16
    for (int r = 0; r < 16; ++r) {
      if ((r & s) != 0) continue;
      const __m512i first = v[r];
      const __m512i second = v[r | s];
      v[r] = _mm512_permutex2var_epi32(first, low, second);
      v[r | s] = _mm512_permutex2var_epi32(first, high, second);
    }
  }
}

// Packs row panels of 32 rows in blocks of 16 groups, row by row: a block is 32 rows of 64 bytes
// (the row's k-steps 64 * block .. + 63), the rows an activation tile loads. Each block is first
// packed group by group as VNNI does (32 rows' cells per group), then transposed as int32.
__attribute__((target("avx512f"))) void PackRowsAmx(const uint8_t* a, int lda, int m, int k,
                                                    uint8_t* packed) {
  const int groups = AmxInt8Kernel().Groups(k);
  const int panels = (m + kRows - 1) / kRows;
  const size_t panel_bytes = static_cast<size_t>(groups) * kRows * 4;
  alignas(64) uint8_t quads[kBlockBytes];  // group g's 32 cells at quads + g * kRows * 4
  for (int block = 0; block < groups / kBlockGroups; ++block) {
    const int first_step = block * kBlockGroups * 4;
    PrefetchColumns(a, lda, m, k, first_step + kBlockGroups * 4, kBlockGroups * 4);
    for (int panel = 0; panel < panels; ++panel) {
      const int first_row = panel * kRows;
      for (int group = 0; group < kBlockGroups; ++group) {
        const int p = first_step + group * 4;
        uint8_t* target = quads + group * kRows * 4;
        if (p >= k) {
          std::memset(target, 0, kRows * 4);
          continue;
        }
        PackByteQuadGroup(target, a + static_cast<size_t>(p) * lda + first_row, lda,
                          std::min(kRows, m - first_row), p, k);
      }
      uint8_t* target = packed + panel * panel_bytes + static_cast<size_t>(block) * kBlockBytes;
      for (int half = 0; half < 2; ++half) {
        __m512i v[16];
#pragma GCC unroll 16
        for (int group = 0; group < 16; ++group) {
          v[group] = _mm512_load_si512(quads + group * kRows * 4 + half * 64);
        }
        Transpose16x16(v);  // v[r]: row 16 * half + r's 16 cells
#pragma GCC unroll 16
        for (int r = 0; r < 16; ++r) _mm512_storeu_si512(target + (half * 16 + r) * 64, v[r]);
      }
    }
  }
}

}  // namespace

// The tile registers of the micro-kernel. Macros, not constants: GCC's tile intrinsics paste their
// operand into the instruction's text, so it must expand to a literal number.
#define LUMEN_SUMS_00 0
#define LUMEN_SUMS_01 1
#define LUMEN_SUMS_10 2
#define LUMEN_SUMS_11 3
#define LUMEN_ROWS_0 4
#define LUMEN_ROWS_1 5
#define LUMEN_WEIGHTS_0 6
#define LUMEN_WEIGHTS_1 7

namespace {

// Sums tile (r, c) holds rows [16r, 16r + 16) by channels [16c, 16c + 16), one row of A per tile
// row. Per block of 16 groups: two activation tiles (rows 0-15 and 16-31, 64 bytes each), two
// weight tiles (channels 0-15 and 16-31 of each group: 64 bytes at the panel's 128-byte stride)
// and four tdpbusd. Then the tiles go to the stack and, transposed, to C's columns.
__attribute__((target("amx-tile,amx-int8,avx512f"))) void AmxMicroKernel(
    int groups, const uint8_t* a, const uint8_t* b, int32_t* sums, int ld, bool accumulate) {
  _tile_zero(LUMEN_SUMS_00);
  _tile_zero(LUMEN_SUMS_01);
  _tile_zero(LUMEN_SUMS_10);
  _tile_zero(LUMEN_SUMS_11);
  for (int group = 0; group < groups; group += kBlockGroups, a += kBlockBytes, b += kBlockBytes) {
    _tile_loadd(LUMEN_ROWS_0, a, 64);
    _tile_loadd(LUMEN_ROWS_1, a + 16 * 64, 64);
    _tile_loadd(LUMEN_WEIGHTS_0, b, kColumns * 4);
    _tile_loadd(LUMEN_WEIGHTS_1, b + 64, kColumns * 4);
    _tile_dpbusd(LUMEN_SUMS_00, LUMEN_ROWS_0, LUMEN_WEIGHTS_0);  // unsigned A, signed weights
    _tile_dpbusd(LUMEN_SUMS_01, LUMEN_ROWS_0, LUMEN_WEIGHTS_1);
    _tile_dpbusd(LUMEN_SUMS_10, LUMEN_ROWS_1, LUMEN_WEIGHTS_0);
    _tile_dpbusd(LUMEN_SUMS_11, LUMEN_ROWS_1, LUMEN_WEIGHTS_1);
  }
  alignas(64) int32_t tile[kRows * kColumns];  // row i's 32 channel sums at tile + 32 * i
  _tile_stored(LUMEN_SUMS_00, tile, kColumns * 4);
  _tile_stored(LUMEN_SUMS_01, tile + 16, kColumns * 4);
  _tile_stored(LUMEN_SUMS_10, tile + 16 * kColumns, kColumns * 4);
  _tile_stored(LUMEN_SUMS_11, tile + 16 * kColumns + 16, kColumns * 4);
  for (int row_half = 0; row_half < 2; ++row_half) {
    for (int column_half = 0; column_half < 2; ++column_half) {
      __m512i v[16];
#pragma GCC unroll 16
      for (int r = 0; r < 16; ++r) {
        v[r] = _mm512_load_si512(tile + (row_half * 16 + r) * kColumns + column_half * 16);
      }
      Transpose16x16(v);  // v[c]: channel 16 * column_half + c's 16 row sums
#pragma GCC unroll 16
      for (int c = 0; c < 16; ++c) {
        int32_t* column = sums + static_cast<size_t>(column_half * 16 + c) * ld + row_half * 16;
        const __m512i value =
            accumulate ? _mm512_add_epi32(v[c], _mm512_loadu_si512(column)) : v[c];
        _mm512_storeu_si512(column, value);
      }
    }
  }
}

}  // namespace

#undef LUMEN_SUMS_00
#undef LUMEN_SUMS_01
#undef LUMEN_SUMS_10
#undef LUMEN_SUMS_11
#undef LUMEN_ROWS_0
#undef LUMEN_ROWS_1
#undef LUMEN_WEIGHTS_0
#undef LUMEN_WEIGHTS_1

namespace {

// The matrix-vector kernel on AMX's weight layout, with vpdpbusd (one row would fill a sixteenth
// of a tile): per group the expanded row's cell 32 times against the panel's 32 cells, two groups
// at a time into four accumulators (groups come in blocks of 16, so in pairs).
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void AmxLayoutPanelVector(
    int groups, const uint8_t* expanded, const uint8_t* panel, int32_t* sums) {
  __m512i sum[4];
#pragma GCC unroll 4
  for (__m512i& value : sum) value = _mm512_setzero_si512();
  for (int group = 0; group < groups; group += 2) {
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      const size_t offset = static_cast<size_t>(group) * kColumns * 4 + 64 * v;
      sum[v] = _mm512_dpbusd_epi32(sum[v], _mm512_loadu_si512(expanded + offset),
                                   _mm512_loadu_si512(panel + offset));  // unsigned row, signed W
    }
  }
  _mm512_storeu_si512(sums, _mm512_add_epi32(sum[0], sum[2]));
  _mm512_storeu_si512(sums + 16, _mm512_add_epi32(sum[1], sum[3]));
}

}  // namespace

const Int8Kernel& AmxInt8Kernel() {
  static const Int8Kernel kernel{kRows,
                                 kColumns,
                                 4,
                                 kBlockGroups,
                                 kInt8GemmMaxDepth,  // the whole depth: one transpose per tile
                                 PackRowsAmx,
                                 AmxMicroKernel,
                                 ExpandVectorGroups<kColumns, 4, kBlockGroups>,
                                 AmxLayoutPanelVector,
                                 AmxTilesBegin,
                                 AmxTilesEnd};
  return kernel;
}

}  // namespace lumen
