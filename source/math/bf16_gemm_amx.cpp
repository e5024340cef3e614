// The bf16 GEMM's AMX micro-kernel: four 16 x 16 tiles of fp32 sums (32 channels x 32 rows), and
// per block of 16 pairs two tiles of weights, two of activations and four tdpbf16ps. Also the
// matrix-vector kernel for weights in AMX's layout, with vdpbf16ps.
//
// Compiled with target attributes, not with the library's flags, so that every build contains
// them; math/bf16_gemm.cpp runs them only where DetectedCpuFeatures() reports AMX (which includes
// Linux's permission to use the tile registers), between AmxTilesBegin() and AmxTilesEnd()
// (math/amx_tiles: eight tiles of 16 rows of 64 bytes).
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "math/amx_tiles.hpp"
#include "math/bf16_gemm.hpp"
#include "math/bf16_gemm_kernels.hpp"

namespace lumen {

static_assert(kBf16PanelRows == 32 && kAmxPanelColumns == 32 && kAmxBlockPairs == 16,
              "the micro-kernel's 2 x 2 tiles of 16 x 16 sums");

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

// Sums tile (c, r) holds channels [16c, 16c + 16) by rows [16r, 16r + 16): its tile row is one
// channel's 16 row sums, contiguous in the column-major C, so tiles load and store at C's own
// stride. A weight tile row is one channel's 16 pairs (64 bytes, the next channel 64 bytes on);
// an activation tile row is one pair's 16 row cells, half of the panel's 32 (128 bytes on).
__attribute__((target("amx-tile,amx-bf16"))) void AmxBf16MicroKernel(int pairs, const uint32_t* a,
                                                                     const uint32_t* b, float* sums,
                                                                     int ld, bool accumulate) {
  const size_t stride = static_cast<size_t>(ld) * sizeof(float);
  AmxLoadSumTiles(sums, stride, accumulate);
  constexpr int kBlockCells = kAmxBlockPairs * 32;  // a block of the row panel, and of W's panel
  for (int pair = 0; pair < pairs; pair += kAmxBlockPairs, a += kBlockCells, b += kBlockCells) {
    _tile_loadd(LUMEN_WEIGHTS_0, b, 64);
    _tile_loadd(LUMEN_WEIGHTS_1, b + 16 * kAmxBlockPairs, 64);
    _tile_loadd(LUMEN_ROWS_0, a, 128);
    _tile_loadd(LUMEN_ROWS_1, a + 16, 128);
    _tile_dpbf16ps(LUMEN_SUMS_00, LUMEN_WEIGHTS_0, LUMEN_ROWS_0);
    _tile_dpbf16ps(LUMEN_SUMS_01, LUMEN_WEIGHTS_0, LUMEN_ROWS_1);
    _tile_dpbf16ps(LUMEN_SUMS_10, LUMEN_WEIGHTS_1, LUMEN_ROWS_0);
    _tile_dpbf16ps(LUMEN_SUMS_11, LUMEN_WEIGHTS_1, LUMEN_ROWS_1);
  }
  AmxStoreSumTiles(sums, stride);
}

#undef LUMEN_SUMS_00
#undef LUMEN_SUMS_01
#undef LUMEN_SUMS_10
#undef LUMEN_SUMS_11
#undef LUMEN_WEIGHTS_0
#undef LUMEN_WEIGHTS_1
#undef LUMEN_ROWS_0
#undef LUMEN_ROWS_1

// The sum of v's 16 lanes, through memory (GCC 12's in-register reductions and shuffles warn of
// an uninitialised variable in its own headers); once per channel, after the whole depth.
__attribute__((target("avx512f"))) static float SumOfLanes(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  float sum = 0.0f;
  for (const float lane : lanes) sum += lane;
  return sum;
}

// Per half panel of 16 channels: one accumulator per channel, each adding the products of the
// channel's 16 cells of a block with the row's 16, then summed across its lanes.
__attribute__((target("avx512f,avx512bf16"))) void Avx512Bf16AmxPanelVector(int pairs,
                                                                            const uint32_t* row,
                                                                            const uint32_t* panel,
                                                                            float* sums) {
  for (int half = 0; half < 2; ++half) {
    __m512 channel_sums[16];
#pragma GCC unroll 16
    for (__m512& sum : channel_sums) sum = _mm512_setzero_ps();
    for (int pair = 0; pair < pairs; pair += kAmxBlockPairs) {
      const __m512bh values = (__m512bh)_mm512_loadu_si512(row + pair);
      const uint32_t* block = panel + static_cast<size_t>(pair) * kAmxPanelColumns + half * 256;
#pragma GCC unroll 16
      for (int c = 0; c < 16; ++c) {
        channel_sums[c] = _mm512_dpbf16_ps(
            channel_sums[c], (__m512bh)_mm512_loadu_si512(block + c * kAmxBlockPairs), values);
      }
    }
    for (int c = 0; c < 16; ++c) sums[half * 16 + c] = SumOfLanes(channel_sums[c]);
  }
}

}  // namespace lumen
