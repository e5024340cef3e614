// The int8 GEMM's AMX kernel: tdpbsud multiplies a tile of 16 channels x 64 signed weight bytes by
// a tile of 16 groups x 16 rows of unsigned activation quads, 16 x 16 x 64 = 16384 multiply-adds
// into a 16 x 16 int32 tile in one instruction (VNNI's vpdpbusd makes 64).
//
// AMX-INT8 has a dot product for each pairing of signed and unsigned bytes; tdpbsud (signed first
// operand, unsigned second) lets the weights be the tile read as rows, so that a sums tile row is
// one channel's sums over 16 rows of A: contiguous in the column-major C, which tiles then load
// and store at C's own stride, as the bf16 kernel does. The activations keep the VNNI kernel's
// row panels (per group, 32 rows' cells): an activation tile is 16 groups of 16 rows, at the
// panel's 128-byte stride. The weights get their own panels: 32 channels, in blocks of 16 groups
// whose cells lie together per channel (Int8Kernel's block_groups), a weight tile row.
//
// Compiled with target attributes, not with the library's flags, so that every build contains it;
// Int8KernelFor runs it only where DetectedCpuFeatures() reports amx_int8 (which includes Linux's
// permission to use the tile registers), between AmxTilesBegin() and AmxTilesEnd().
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "math/amx_tiles.hpp"
#include "math/int8_gemm_kernels.hpp"

namespace lumen {
namespace {

// The tile of sums: 32 output channels by 32 rows of A, four 16 x 16 tiles.
constexpr int kRows = 32;
constexpr int kColumns = 32;
// Groups per block: a weight tile row holds 16 byte quads.
constexpr int kBlockGroups = 16;
// Bytes of one block of groups, of a row panel and of a column panel alike.
constexpr int kBlockBytes = kBlockGroups * 32 * 4;
static_assert(kRows == kByteQuadRows, "the row panels are VNNI's");

// Packs VNNI's byte quads (per group, 32 rows' cells), the groups padded to whole blocks.
void PackRowsByteQuads(const uint8_t* a, int lda, int m, int k, uint8_t* packed) {
  PackRowPanels<kRows, 4, kBlockGroups>(
      a, lda, m, k, packed, [=](uint8_t* target, const uint8_t* column, int valid, int p) {
        PackByteQuadGroup(target, column, lda, valid, p, k);
      });
}

}  // namespace

// The tile registers of the micro-kernel (sums (c, r) in registers 0-3, as math/amx_tiles keeps
// them). Macros, not constants: GCC's tile intrinsics paste their operand into the instruction's
// text, so it must expand to a literal number.
#define LUMEN_SUMS_00 0
#define LUMEN_SUMS_01 1
#define LUMEN_SUMS_10 2
#define LUMEN_SUMS_11 3
#define LUMEN_WEIGHTS_0 4
#define LUMEN_WEIGHTS_1 5
#define LUMEN_ROWS_0 6
#define LUMEN_ROWS_1 7

namespace {

// Sums tile (c, r) holds channels [16c, 16c + 16) by rows [16r, 16r + 16), one channel per tile
// row. Per block of 16 groups: two weight tiles (channels 0-15 and 16-31, 64 bytes each), two
// activation tiles (rows 0-15 and 16-31 of each group: 64 bytes at the panel's 128-byte stride)
// and four tdpbsud.
__attribute__((target("amx-tile,amx-int8"))) void AmxMicroKernel(int groups, const uint8_t* a,
                                                                 const uint8_t* b, int32_t* sums,
                                                                 int ld, bool accumulate) {
  const size_t stride = static_cast<size_t>(ld) * sizeof(int32_t);
  AmxLoadSumTiles(sums, stride, accumulate);
  for (int group = 0; group < groups; group += kBlockGroups, a += kBlockBytes, b += kBlockBytes) {
    _tile_loadd(LUMEN_WEIGHTS_0, b, kBlockGroups * 4);
    _tile_loadd(LUMEN_WEIGHTS_1, b + 16 * kBlockGroups * 4, kBlockGroups * 4);
    _tile_loadd(LUMEN_ROWS_0, a, kRows * 4);
    _tile_loadd(LUMEN_ROWS_1, a + 64, kRows * 4);
    _tile_dpbsud(LUMEN_SUMS_00, LUMEN_WEIGHTS_0, LUMEN_ROWS_0);  // signed weights, unsigned A
    _tile_dpbsud(LUMEN_SUMS_01, LUMEN_WEIGHTS_0, LUMEN_ROWS_1);
    _tile_dpbsud(LUMEN_SUMS_10, LUMEN_WEIGHTS_1, LUMEN_ROWS_0);
    _tile_dpbsud(LUMEN_SUMS_11, LUMEN_WEIGHTS_1, LUMEN_ROWS_1);
  }
  AmxStoreSumTiles(sums, stride);
}

}  // namespace

#undef LUMEN_SUMS_00
#undef LUMEN_SUMS_01
#undef LUMEN_SUMS_10
#undef LUMEN_SUMS_11
#undef LUMEN_WEIGHTS_0
#undef LUMEN_WEIGHTS_1
#undef LUMEN_ROWS_0
#undef LUMEN_ROWS_1

namespace {

// The sum of v's 16 lanes, through memory (GCC 12's in-register reductions warn of an
// uninitialised variable in its own headers); once per channel, after the whole depth.
__attribute__((target("avx512f"))) int32_t SumOfLanes(__m512i v) {
  alignas(64) int32_t lanes[16];
  _mm512_store_si512(lanes, v);
  int32_t sum = 0;
  for (const int32_t lane : lanes) sum += lane;
  return sum;
}

// The matrix-vector kernel on AMX's weight panels, with vpdpbusd (one row would fill a sixteenth
// of a tile): per half panel of 16 channels, one accumulator per channel adding the products of
// the channel's 16 cells of a block with the row's 16 (`expanded`: the row's cells, once each),
// then summed across its lanes.
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void AmxLayoutPanelVector(
    int groups, const uint8_t* expanded, const uint8_t* panel, int32_t* sums) {
  for (int half = 0; half < 2; ++half) {
    __m512i channel_sums[16];
#pragma GCC unroll 16
    for (__m512i& sum : channel_sums) sum = _mm512_setzero_si512();
    for (int group = 0; group < groups; group += kBlockGroups) {
      const __m512i row = _mm512_loadu_si512(expanded + static_cast<size_t>(group) * 4);
      const uint8_t* block =
          panel + static_cast<size_t>(group / kBlockGroups) * kBlockBytes + half * kBlockBytes / 2;
#pragma GCC unroll 16
      for (int c = 0; c < 16; ++c) {
        channel_sums[c] = _mm512_dpbusd_epi32(channel_sums[c], row,  // unsigned row, signed W
                                              _mm512_loadu_si512(block + c * kBlockGroups * 4));
      }
    }
    for (int c = 0; c < 16; ++c) sums[half * 16 + c] = SumOfLanes(channel_sums[c]);
  }
}

}  // namespace

const Int8Kernel& AmxInt8Kernel() {
  static const Int8Kernel kernel{kRows,
                                 kColumns,
                                 4,
                                 kBlockGroups,
                                 PackRowsByteQuads,
                                 AmxMicroKernel,
                                 ExpandVectorGroups<1, 4, kBlockGroups>,
                                 AmxLayoutPanelVector,
                                 AmxTilesBegin,
                                 AmxTilesEnd};
  return kernel;
}

}  // namespace lumen
