// A tanh(x) the compiler can vectorise. std::tanh is a libm call that GCC will not turn into SIMD
// code, and it made the tanh after each convolution of a super-resolution net cost more than the
// convolution itself. The reference is std::tanh: test/math/test_fast_tanh.cpp holds the two
// together over a dense sweep.
#ifndef LUMEN_MATH_FAST_TANH_HPP_
#define LUMEN_MATH_FAST_TANH_HPP_

#include <cmath>

#include "math/fast_exp.hpp"

namespace lumen {

// tanh(x) for float, within 1 ulp of the correctly rounded value (relative error below 1.5e-7 on
// the test's sweep, like PyTorch's Sleef kernel); +-1 for +-inf, NaN for NaN, -0 for -0.
//
// On |x| < 0.625 an odd polynomial, x * p(x^2), fitted to tanh(x) / x on that interval for
// relative error (1e-7, about float's own rounding): near 0 every formula built on exp would
// cancel. Above it, 1 - 2 / (exp(2|x|) + 1), whose quotient is at most 0.56 and so cannot cancel.
// From |x| = 9.01 on tanh rounds to 1 in float (1 - tanh(9.01) is below half an ulp of 1), so
// 2|x| is clamped to 20 and exp needs none of FastExp's overflow tests (FastExpInRange: the
// function takes half the time). Both sides are computed and one is selected, which is what
// lets the loop vectorise (and, like FastExp, it is always inlined: a call would not).
LUMEN_ALWAYS_INLINE float FastTanh(float x) {
  const float magnitude = std::fabs(x);
  const float square = magnitude * magnitude;
  float p = -0.005697522312402725f;
  p = p * square + 0.020630307495594025f;
  p = p * square - 0.05373586341738701f;
  p = p * square + 0.13331365585327148f;
  p = p * square - 0.33333274722099304f;
  p = p * square + 1.0f;
  const float series = magnitude * p;
  // std::max(0, NaN) is 0: NaN must not reach exp's float-to-int conversion (undefined
  // behaviour). It is given back at the end.
  const float doubled = std::max(0.0f, std::min(2.0f * magnitude, 20.0f));
  const float formula = 1.0f - 2.0f / (FastExpInRange(doubled) + 1.0f);
  const float result = std::copysign(magnitude < 0.625f ? series : formula, x);
  return x != x ? x : result;
}

}  // namespace lumen

#endif  // LUMEN_MATH_FAST_TANH_HPP_
