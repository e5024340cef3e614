#include "math/amx_tiles.hpp"

#include <immintrin.h>

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

}  // namespace lumen
