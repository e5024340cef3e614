// Pointwise activation functions: the math, shared by the activation layers and by kernels that
// apply an activation to their own output (a convolution followed by a ReLU, for instance).
#ifndef LUMEN_MATH_ACTIVATION_HPP_
#define LUMEN_MATH_ACTIVATION_HPP_

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "base/compute_context.hpp"
#include "math/fast_exp.hpp"
#include "math/fast_tanh.hpp"
#include "math/simd.hpp"

namespace lumen {

// erf(x) for float as PyTorch's vectorised CPU kernels compute it (Abramowitz and Stegun 7.1.26,
// absolute error below 1.5e-7): sign(x) * (1 - t * r(t) * exp(-x^2)) with t = 1 / (1 + p|x|).
// Unlike std::erf, a loop over it vectorises, and it rounds like PyTorch's GELU.
LUMEN_ALWAYS_INLINE float FastErf(float x) {
  const float magnitude = std::fabs(x);
  const float t = 1.0f / (0.3275911f * magnitude + 1.0f);
  float r = 1.061405429f;
  r = r * t - 1.453152027f;
  r = r * t + 1.421413741f;
  r = r * t - 0.284496736f;
  r = r * t + 0.254829592f;
  const float value = 1.0f - r * t * FastExpOfNonPositive(-x * x);
  return std::copysign(value, x);
}

// log|Gamma(x)|, as torch.lgamma. glibc's lgammaf also writes the global `signgam`, a data race
// when several threads apply it: its reentrant form writes the sign to a local instead.
inline float LogGamma(float x) {
#if defined(__GLIBC__)
  int sign = 0;
  return lgammaf_r(x, &sign);
#else
  return std::lgamma(x);
#endif
}

// Which function, plus its parameters where it has them.
struct Activation {
  enum class Kind {
    kIdentity,
    kRelu,
    kRelu6,
    kLeakyRelu,  // alpha = negative_slope
    kElu,        // alpha
    kSigmoid,
    kSilu,
    kTanh,
    kHardswish,
    kHardsigmoid,
    kGelu,      // exact: x * Phi(x), through erf
    kGeluTanh,  // approximate='tanh'
    kClamp,     // alpha = min, beta = max (Hardtanh, torch.clamp; +-inf for an open side)
    kMish,
    kSoftplus,  // alpha = beta, beta = threshold
    kCelu,      // alpha
    kSelu,
    kHardshrink,  // alpha = lambd
    kSoftshrink,  // alpha = lambd
    kTanhshrink,
    kSoftsign,
    kThreshold,  // alpha = threshold, beta = value
    kLogSigmoid,
    kLgamma,
  };
  Kind kind = Kind::kIdentity;
  float alpha = 0.0f;
  float beta = 0.0f;
};

// Marks a lambda's call operator always-inline. WithActivation's callers are often large
// (Winograd's output transform), and there GCC's inlining budget ran out: the tanh after the
// super-resolution net's Winograd layer was left a call per element, 6 of its 18 ms at one thread.
#define LUMEN_INLINE_LAMBDA __attribute__((always_inline))

// Calls body(f) with the activation as a plain function object (float -> float), so that the
// caller's loop is compiled, and vectorised, once per activation, with f inlined. This switch is
// the one place the math lives; the formulas follow PyTorch's CPU kernels so that results round
// the same way (and NaN stays NaN).
template <typename Body>
void WithActivation(const Activation& activation, Body body) {
  const float alpha = activation.alpha;
  const float beta = activation.beta;
  switch (activation.kind) {
    case Activation::Kind::kIdentity:
      body([](float x) LUMEN_INLINE_LAMBDA { return x; });
      break;
    case Activation::Kind::kRelu:
      body([](float x) LUMEN_INLINE_LAMBDA { return std::max(x, 0.0f); });
      break;
    case Activation::Kind::kRelu6:
      body([](float x) LUMEN_INLINE_LAMBDA { return std::min(std::max(x, 0.0f), 6.0f); });
      break;
    case Activation::Kind::kLeakyRelu:
      body([alpha](float x) LUMEN_INLINE_LAMBDA { return x > 0.0f ? x : x * alpha; });
      break;
    case Activation::Kind::kElu:
      body([alpha](float x) LUMEN_INLINE_LAMBDA { return x > 0.0f ? x : alpha * std::expm1(x); });
      break;
    case Activation::Kind::kSigmoid:
      body([](float x) LUMEN_INLINE_LAMBDA { return 1.0f / (1.0f + FastExpWithNarrowRange(-x)); });
      break;
    case Activation::Kind::kSilu:
      body([](float x) LUMEN_INLINE_LAMBDA { return x / (1.0f + FastExpWithNarrowRange(-x)); });
      break;
    case Activation::Kind::kTanh:
      // FastTanh, within 1 ulp, vectorises: std::tanh is a libm call per element.
      body([](float x) LUMEN_INLINE_LAMBDA { return FastTanh(x); });
      break;
    case Activation::Kind::kHardswish:
      body([](float x)
               LUMEN_INLINE_LAMBDA { return x * std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f; });
      break;
    case Activation::Kind::kHardsigmoid:
      body([](float x)
               LUMEN_INLINE_LAMBDA { return std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f; });
      break;
    case Activation::Kind::kGelu:
      body([](float x) LUMEN_INLINE_LAMBDA {
        return 0.5f * x * (1.0f + FastErf(x * 0.70710678118654752f));
      });
      break;
    case Activation::Kind::kGeluTanh:
      // 0.5 * x * (1 + tanh(u)) is exactly x / (1 + exp(-2u)): one vectorisable exp, no tanh.
      body([](float x) LUMEN_INLINE_LAMBDA {
        const float inner = 0.79788456080286536f * (x + 0.044715f * x * x * x);
        return x / (1.0f + FastExpWithNarrowRange(-2.0f * inner));
      });
      break;
    case Activation::Kind::kClamp:
      // NaN passes through both comparisons unchanged, as in torch.clamp.
      body([alpha, beta](float x)
               LUMEN_INLINE_LAMBDA { return std::min(std::max(x, alpha), beta); });
      break;
    case Activation::Kind::kMish:
      body([](float x) LUMEN_INLINE_LAMBDA { return x * std::tanh(std::log1p(std::exp(x))); });
      break;
    case Activation::Kind::kSoftplus:
      body([alpha, beta](float x) LUMEN_INLINE_LAMBDA {
        return x * alpha > beta ? x : std::log1p(std::exp(x * alpha)) / alpha;
      });
      break;
    case Activation::Kind::kCelu:
      // PyTorch runs CELU as ELU with the input scaled by 1 / alpha.
      body([alpha, scale = 1.0f / alpha](float x)
               LUMEN_INLINE_LAMBDA { return x > 0.0f ? x : alpha * std::expm1(x * scale); });
      break;
    case Activation::Kind::kSelu:
      body([](float x) LUMEN_INLINE_LAMBDA {
        constexpr float kScale = 1.0507009873554804934f;
        constexpr float kAlphaTimesScale = 1.6732632423543772848f * 1.0507009873554804934f;
        return x > 0.0f ? kScale * x : kAlphaTimesScale * std::expm1(x);
      });
      break;
    case Activation::Kind::kHardshrink:
      body([alpha](float x) LUMEN_INLINE_LAMBDA { return x >= -alpha && x <= alpha ? 0.0f : x; });
      break;
    case Activation::Kind::kSoftshrink:
      body([alpha](float x) LUMEN_INLINE_LAMBDA {
        return x > alpha ? x - alpha : (x < -alpha ? x + alpha : x * 0.0f);  // NaN stays NaN
      });
      break;
    case Activation::Kind::kTanhshrink:
      body([](float x) LUMEN_INLINE_LAMBDA { return x - FastTanh(x); });
      break;
    case Activation::Kind::kSoftsign:
      body([](float x) LUMEN_INLINE_LAMBDA { return x / (std::fabs(x) + 1.0f); });
      break;
    case Activation::Kind::kThreshold:
      body([alpha, beta](float x) LUMEN_INLINE_LAMBDA { return x <= alpha ? beta : x; });
      break;
    case Activation::Kind::kLogSigmoid:
      // log(1 / (1 + exp(-x))) without overflow for either sign of x, as PyTorch computes it.
      body([](float x) LUMEN_INLINE_LAMBDA {
        return std::min(x, 0.0f) - std::log1p(std::exp(-std::fabs(x)));
      });
      break;
    case Activation::Kind::kLgamma:
      body([](float x) LUMEN_INLINE_LAMBDA { return LogGamma(x); });
      break;
  }
}

// Computes output[i] = f(input[i]) for `count` elements (input may equal output), spread over the
// context's threads when there is enough work.
void ApplyActivation(const Activation& activation, const float* input, float* output, size_t count,
                     const ComputeContext& context);

// True when `activation` is one a kernel can apply in registers (none, ReLU, ReLU6), that
// LaneClamp then stored in *clamp.
bool IsLaneClamp(const Activation& activation, LaneClamp* clamp);

// Computes values[i] = f(values[i] + bias) for `count` elements on the calling thread: the last
// step of a convolution's output channel, run inside the caller's parallel loop.
void AddBiasAndActivate(const Activation& activation, float bias, float* values, size_t count);

}  // namespace lumen

#endif  // LUMEN_MATH_ACTIVATION_HPP_
