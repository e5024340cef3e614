// Strict number parsing: the whole token is the number, or it is an error.
#include <gtest/gtest.h>

#include <cmath>

#include "base/parse_number.hpp"

namespace lumen {
namespace {

TEST(ParseNumber, Integers) {
  int64_t value = 0;
  EXPECT_TRUE(ParseInteger("-42", &value));
  EXPECT_EQ(value, -42);
  EXPECT_TRUE(ParseInteger("+7", &value));
  EXPECT_EQ(value, 7);
  EXPECT_FALSE(ParseInteger("1x1", &value));
  EXPECT_FALSE(ParseInteger("", &value));
  EXPECT_FALSE(ParseInteger("-", &value));
  EXPECT_FALSE(ParseInteger(" 1", &value));
  EXPECT_FALSE(ParseInteger("99999999999999999999", &value));  // overflows int64
}

TEST(ParseNumber, Floats) {
  float value = 0;
  EXPECT_TRUE(ParseFloat("1.000000e-05", &value));
  EXPECT_EQ(value, 1e-5f);
  EXPECT_TRUE(ParseFloat("-2.5", &value));
  EXPECT_EQ(value, -2.5f);
  EXPECT_TRUE(ParseFloat("3", &value));
  EXPECT_TRUE(ParseFloat("-inf", &value) && std::isinf(value) && value < 0);
  EXPECT_TRUE(ParseFloat("nan", &value) && std::isnan(value));
  EXPECT_FALSE(ParseFloat("2.0f", &value));
  EXPECT_FALSE(ParseFloat("0x1p3", &value));  // strtof would accept hex floats
  EXPECT_FALSE(ParseFloat("1e99", &value));   // too large for a float
  EXPECT_FALSE(ParseFloat("e", &value));
  // Only digits, dots, signs and exponents, yet not one number: strtof stops early, so the whole
  // token must be consumed.
  EXPECT_FALSE(ParseFloat("1.2.3", &value));
  EXPECT_FALSE(ParseFloat("1-2", &value));
  EXPECT_FALSE(ParseFloat("1e5e5", &value));
  // An underflow is not an error: a tiny weight becomes a subnormal (or zero), as in PyTorch.
  EXPECT_TRUE(ParseFloat("1e-40", &value));
  EXPECT_GT(value, 0.0f);
  EXPECT_LT(value, 1e-38f);
  EXPECT_FALSE(ParseFloat("", &value));
}

}  // namespace
}  // namespace lumen
