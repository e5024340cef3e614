// FastExp against std::exp: the activations (sigmoid, SiLU) trust it, so it gets its own test;
// its variants for non-positive arguments (GELU's erf) and for quotients (sigmoid, SiLU) against
// FastExp.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "math/fast_exp.hpp"

namespace lumen {
namespace {

// Relative error of FastExp at x, measured against the double-precision exp.
double RelativeError(float x) {
  const double exact = std::exp(static_cast<double>(x));
  return std::abs(static_cast<double>(FastExp(x)) - exact) / exact;
}

TEST(FastExp, MatchesStdExpAcrossTheNormalRange) {
  // A fine sweep over every input whose exp is a normal float: the polynomial and the 2^k
  // exponent trick must hold together everywhere, including where k changes and at the top,
  // where k reaches 128. A float's rounding alone is up to 6e-8; allow about one unit more.
  double worst = 0;
  float worst_x = 0;
  for (float x = -87.3f; x <= 88.7f; x += 0.000731f) {
    const double error = RelativeError(x);
    if (error > worst) {
      worst = error;
      worst_x = x;
    }
  }
  EXPECT_LT(worst, 1.5e-7) << "worst at x = " << worst_x;
}

TEST(FastExp, IsExactWhereExpIsSimple) {
  EXPECT_EQ(FastExp(0.0f), 1.0f);
  EXPECT_NEAR(FastExp(1.0f), 2.7182817f, 3e-7f);
  EXPECT_NEAR(FastExp(-1.0f), 0.36787945f, 3e-8f);
  EXPECT_NEAR(FastExp(std::log(2.0f) * 10), 1024.0f, 1024.0f * 3e-7f);
}

TEST(FastExp, SaturatesInsteadOfWrappingTheExponent) {
  // Far outside the range the exponent bits would overflow; clamping keeps the answer sane, so
  // sigmoid(-1000) is 0 and sigmoid(1000) is 1 instead of garbage.
  EXPECT_GE(FastExp(-1000.0f), 0.0f);
  EXPECT_LT(FastExp(-1000.0f), 1e-37f);
  EXPECT_GT(FastExp(1000.0f), 1e38f);
  EXPECT_TRUE(std::isfinite(1.0f / (1.0f + FastExp(1000.0f))));
  EXPECT_EQ(1.0f / (1.0f + FastExp(-1000.0f)), 1.0f);
}

TEST(FastExp, KeepsNaN) {
  EXPECT_TRUE(std::isnan(FastExp(std::numeric_limits<float>::quiet_NaN())));
}

// EXPECTs `variant` to give FastExp's bits at every `step` from `from` to `to`.
template <typename Variant>
void ExpectFastExpsBits(Variant variant, float from, float to, float step) {
  int mismatches = 0;
  float first_mismatch = 0;
  for (float x = from; x <= to; x += step) {
    if (variant(x) != FastExp(x) && mismatches++ == 0) first_mismatch = x;
  }
  EXPECT_EQ(mismatches, 0) << "first at x = " << first_mismatch;
}

// The non-positive variant (erf's exp(-x^2)) must be FastExp itself, bit for bit, on its range,
// so that GELU rounds as before and as PyTorch's kernel.
TEST(FastExpOfNonPositive, GivesFastExpsBitsFromMinus87ToZero) {
  ExpectFastExpsBits([](float x) { return FastExpOfNonPositive(x); }, -87.3f, 0.0f, 0.000373f);
  EXPECT_EQ(FastExpOfNonPositive(0.0f), 1.0f);
  EXPECT_EQ(FastExpOfNonPositive(-0.0f), 1.0f);
}

TEST(FastExpOfNonPositive, StaysTinyBelowTheRangeAndKeepsNaN) {
  EXPECT_GE(FastExpOfNonPositive(-1000.0f), 0.0f);
  EXPECT_LT(FastExpOfNonPositive(-1000.0f), 1e-37f);
  EXPECT_GE(FastExpOfNonPositive(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_TRUE(std::isnan(FastExpOfNonPositive(std::numeric_limits<float>::quiet_NaN())));
}

// The narrow-range variant must be FastExp, bit for bit, on [-87.3, 88], so that sigmoid and SiLU
// round as before there; outside it only its tails differ, and they must keep the quotients right.
TEST(FastExpWithNarrowRange, GivesFastExpsBitsFromMinus87To88) {
  ExpectFastExpsBits([](float x) { return FastExpWithNarrowRange(x); }, -87.3f, 88.0f, 0.000731f);
  EXPECT_EQ(FastExpWithNarrowRange(0.0f), 1.0f);
}

TEST(FastExpWithNarrowRange, KeepsTheQuotientsOfItsTails) {
  const float infinity = std::numeric_limits<float>::infinity();
  EXPECT_EQ(FastExpWithNarrowRange(88.5f), infinity);
  EXPECT_EQ(FastExpWithNarrowRange(infinity), infinity);
  EXPECT_GE(FastExpWithNarrowRange(-1000.0f), 0.0f);
  EXPECT_LT(FastExpWithNarrowRange(-1000.0f), 1e-37f);
  EXPECT_TRUE(std::isnan(FastExpWithNarrowRange(std::numeric_limits<float>::quiet_NaN())));
  // sigmoid(-1000) = 0 and sigmoid(1000) = 1, as PyTorch gives them; SiLU(-inf) is NaN there
  // (-inf / inf) and SiLU(inf) is inf.
  EXPECT_EQ(1.0f / (1.0f + FastExpWithNarrowRange(1000.0f)), 0.0f);
  EXPECT_EQ(1.0f / (1.0f + FastExpWithNarrowRange(-1000.0f)), 1.0f);
  EXPECT_TRUE(std::isnan(-infinity / (1.0f + FastExpWithNarrowRange(infinity))));
  EXPECT_EQ(infinity / (1.0f + FastExpWithNarrowRange(-infinity)), infinity);
}

}  // namespace
}  // namespace lumen
