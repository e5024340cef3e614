#include "math/amx_tiles.hpp"

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace lumen {
namespace {

// ldtilecfg's 64-byte operand: palette 1, then each tile register's bytes per row and rows.
struct alignas(64) TileConfiguration {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t bytes_per_row[16] = {64, 64, 64, 64, 64, 64, 64, 64};
  uint8_t rows[16] = {16, 16, 16, 16, 16, 16, 16, 16};
};
// A constant in memory, not a local: GCC's _tile_loadconfig tells the compiler that it reads only
// the first 8 bytes of its operand, which let the optimiser drop the stores of a local's others.
constexpr TileConfiguration kTileConfiguration{};

}  // namespace

__attribute__((target("amx-tile"))) void AmxTilesBegin() { _tile_loadconfig(&kTileConfiguration); }

__attribute__((target("amx-tile"))) void AmxTilesEnd() { _tile_release(); }

// The tile numbers are literals: GCC's tile intrinsics paste their operand into the instruction.
__attribute__((target("amx-tile"))) void AmxLoadSumTiles(const void* sums, size_t stride_bytes,
                                                         bool accumulate) {
  if (!accumulate) {
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    return;
  }
  const auto* bytes = static_cast<const char*>(sums);
  _tile_loadd(0, bytes, stride_bytes);
  _tile_loadd(1, bytes + 64, stride_bytes);
  _tile_loadd(2, bytes + 16 * stride_bytes, stride_bytes);
  _tile_loadd(3, bytes + 16 * stride_bytes + 64, stride_bytes);
}

__attribute__((target("amx-tile"))) void AmxStoreSumTiles(void* sums, size_t stride_bytes) {
  auto* bytes = static_cast<char*>(sums);
  _tile_stored(0, bytes, stride_bytes);
  _tile_stored(1, bytes + 64, stride_bytes);
  _tile_stored(2, bytes + 16 * stride_bytes, stride_bytes);
  _tile_stored(3, bytes + 16 * stride_bytes + 64, stride_bytes);
}

}  // namespace lumen
