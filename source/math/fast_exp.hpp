// An exp(x) the compiler can vectorise. std::exp is a call into libm that GCC will not turn into
// SIMD code without -ffast-math, which makes a loop over a 160x160x32 SiLU input take ~10x longer.
#ifndef LUMEN_MATH_FAST_EXP_HPP_
#define LUMEN_MATH_FAST_EXP_HPP_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

namespace lumen {

// Each function here is always inlined: a call in a loop keeps GCC from vectorising the loop, and
// in a large caller (Winograd's output transform, with one loop per activation) its inlining
// budget ran out: FastExp was left a call per element, 90 of the 595 million instructions of the
// super-resolution net (tmp/models/super_resolution), in the tanh after its Winograd layer.
#define LUMEN_ALWAYS_INLINE __attribute__((always_inline)) inline

namespace fast_exp_detail {

// The common core of the functions below: for x already clamped to [-87.3, 88.73], the integer k
// (returned as a float) and exp(r), so that exp(x) = 2^k * exp(r).
LUMEN_ALWAYS_INLINE float ReducedExp(float clamped, float* k_out) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2High = 0.693359375f;    // few mantissa bits: k * kLn2High is exact
  constexpr float kLn2Low = -2.12194440e-4f;  // ln 2 - kLn2High
  // Adding and subtracting 1.5 * 2^23 rounds to the nearest integer in two vectorisable adds
  // (std::floor would keep GCC from vectorising the loop).
  constexpr float kRoundingShift = 12582912.0f;
  const float k = (clamped * kLog2e + kRoundingShift) - kRoundingShift;
  const float r = (clamped - k * kLn2High) - k * kLn2Low;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  *k_out = k;
  return p;
}

// 2^k for an integer k in [-126, 127], written straight into a float's exponent bits.
LUMEN_ALWAYS_INLINE float PowerOfTwo(int32_t k) {
  const int32_t bits = (k + 127) << 23;
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

}  // namespace fast_exp_detail

// exp(x) for float, within about 1 ulp of std::exp for finite results; infinity above the largest
// finite result, NaN for NaN, as std::exp.
//
// exp(x) = 2^k * exp(r) with k = round(x / ln 2) and r = x - k ln 2, so |r| <= ln(2)/2; exp(r) is
// a degree-7 Taylor polynomial (error below 1e-8 relative on that range), and 2^k is built by
// writing k straight into float exponent bits (in two halves, see below). ln 2 is split in two
// parts (Cody and Waite) so that k * ln 2 is subtracted without losing r's low bits.
LUMEN_ALWAYS_INLINE float FastExp(float x) {
  // Keep 2^k a normal float. NaN becomes -87.3 here (std::max returns its first argument when
  // the comparison fails), so that k below stays an integer: converting NaN to int32 is undefined
  // behaviour. The NaN itself is returned at the end.
  constexpr float kLargest = 88.72283172607422f;  // the largest float whose exp is finite
  const float clamped = std::min(std::max(-87.3f, x), kLargest);
  float k;
  const float p = fast_exp_detail::ReducedExp(clamped, &k);
  // 2^k as 2^half * 2^(k - half): k reaches 128 just below the clamp (exp(88.7) is still a
  // finite float), and 2^128 has no float of its own, while each half is a normal float.
  const int32_t whole = static_cast<int32_t>(k);
  const int32_t half = whole >> 1;
  const float result =
      p * fast_exp_detail::PowerOfTwo(half) * fast_exp_detail::PowerOfTwo(whole - half);
  // Above kLargest exp overflows to infinity, as std::exp and PyTorch give (exp(100) is inf), and
  // below kUnderflow it rounds to 0 (exp(-inf) is 0). Between kUnderflow and the clamp at -87.3
  // the result stays the smallest normal float, 1.2e-38, instead of a subnormal.
  constexpr float kUnderflow = -103.972084f;
  const float saturated = x > kLargest     ? std::numeric_limits<float>::infinity()
                          : x < kUnderflow ? 0.0f
                                           : result;
  return x != x ? x : saturated;  // NaN in, NaN out
}

// exp(x) for an x the caller has already clamped to [-87.3, 88.0] (so not NaN either): FastExp's
// polynomial times a single power of two (k <= 127 there), without the tests for overflow,
// underflow and NaN that FastExp makes for any argument, which are half of its instructions.
LUMEN_ALWAYS_INLINE float FastExpInRange(float clamped) {
  float k;
  const float p = fast_exp_detail::ReducedExp(clamped, &k);
  return p * fast_exp_detail::PowerOfTwo(static_cast<int32_t>(k));
}

// exp(x) as FastExp gives it on [-87.3, 88.0], infinity above 88.0 (where exp is still finite up
// to 88.72) and the smallest normal float, 1.2e-38, below -87.3; NaN for NaN. For quotients such
// as sigmoid's 1 / (1 + exp(-x)), which those tails change by less than 1e-38 and where infinity
// still gives PyTorch's 0 (and SiLU's -inf / inf its NaN): it takes about 30% fewer
// instructions than FastExp.
LUMEN_ALWAYS_INLINE float FastExpWithNarrowRange(float x) {
  const float result = FastExpInRange(std::max(-87.3f, std::min(x, 88.0f)));
  return x > 88.0f ? std::numeric_limits<float>::infinity() : x != x ? x : result;
}

// exp(x) for x <= 0, as FastExp computes it (the same bits from -87.3 to 0; below -87.3 the
// smallest normal float, 1.2e-38, where FastExp eventually gives 0), NaN for NaN. Without the
// overflow handling that only positive arguments need, it is about a quarter fewer
// instructions: erf's exp(-x^2), in every GELU, uses it.
LUMEN_ALWAYS_INLINE float FastExpOfNonPositive(float x) {
  const float result = FastExpInRange(std::max(-87.3f, std::min(x, 0.0f)));
  return x != x ? x : result;
}

}  // namespace lumen

#endif  // LUMEN_MATH_FAST_EXP_HPP_
