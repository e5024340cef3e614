// bfloat16: the top half of an IEEE binary32 (sign, 8-bit exponent, 7 mantissa bits), the format
// of `--to bf16` weight files and of the bf16 GEMM's operands. Here, below every layer, so that
// the reader (graph/attribute) and the kernels (math/bf16_gemm) convert the same way.
#ifndef LUMEN_BASE_BFLOAT16_HPP_
#define LUMEN_BASE_BFLOAT16_HPP_

#include <cstdint>
#include <cstring>

namespace lumen {

// bfloat16 -> binary32 (exact: bfloat16 is a float32 with the low 16 mantissa bits dropped).
inline float BFloat16ToFloat(uint16_t bits) {
  const uint32_t word = uint32_t{bits} << 16;
  float value;
  std::memcpy(&value, &word, sizeof(value));
  return value;
}

// binary32 -> bfloat16, rounded to the nearest (ties to even); NaN stays a (quiet) NaN. Without
// branches, so that loops of it vectorise (the bf16 GEMM rounds every activation it packs).
inline uint16_t FloatToBFloat16(float value) {
  uint32_t word;
  std::memcpy(&word, &value, sizeof(word));
  // NaN: keep it one, whatever its payload.
  const uint32_t quiet_nan = (word >> 16) | 0x0040;
  // Adding 0x7FFF plus the kept half's lowest bit rounds to the nearest, ties to even; a carry
  // into the exponent is the correct rounding up (to infinity past the largest bfloat16).
  const uint32_t rounded = (word + 0x7FFF + ((word >> 16) & 1)) >> 16;
  return static_cast<uint16_t>((word & 0x7FFFFFFFu) > 0x7F800000u ? quiet_nan : rounded);
}

}  // namespace lumen

#endif  // LUMEN_BASE_BFLOAT16_HPP_
