// Attribute: converting every stored dtype to float32, and refusing what cannot be.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "graph/attribute.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

template <typename T>
Attribute Make(DataType type, const std::vector<T>& values) {
  Attribute attribute;
  attribute.type = type;
  attribute.shape = {static_cast<int>(values.size())};
  attribute.data.resize(values.size() * sizeof(T));
  std::memcpy(attribute.data.data(), values.data(), attribute.data.size());
  return attribute;
}

TEST(Attribute, DataTypeNamesAndSizes) {
  DataType type;
  ASSERT_TRUE(ParseDataType("f16", &type));
  EXPECT_EQ(type, DataType::kFloat16);
  EXPECT_EQ(DataTypeSize(type), 2u);
  ASSERT_TRUE(ParseDataType("c128", &type));
  EXPECT_EQ(DataTypeSize(type), 16u);
  EXPECT_STREQ(DataTypeName(DataType::kBFloat16), "bf16");
  EXPECT_FALSE(ParseDataType("f8", &type));
}

TEST(Attribute, Float32IsCopied) {
  EXPECT_EQ(Make<float>(DataType::kFloat32, {1.5f, -2.0f}).ToFloats(),
            (std::vector<float>{1.5f, -2.0f}));
}

TEST(Attribute, Float16Converts) {
  // 1.0, -2.0, 65504 (largest), 2^-24 (smallest subnormal), -0, +inf, NaN
  const std::vector<float> values =
      Make<uint16_t>(DataType::kFloat16, {0x3C00, 0xC000, 0x7BFF, 0x0001, 0x8000, 0x7C00, 0x7E00})
          .ToFloats();
  EXPECT_EQ(values[0], 1.0f);
  EXPECT_EQ(values[1], -2.0f);
  EXPECT_EQ(values[2], 65504.0f);
  EXPECT_EQ(values[3], std::ldexp(1.0f, -24));
  EXPECT_TRUE(values[4] == 0.0f && std::signbit(values[4]));
  EXPECT_TRUE(std::isinf(values[5]));
  EXPECT_TRUE(std::isnan(values[6]));
}

// The value of IEEE binary16 bits, computed from the definition in double precision:
// (-1)^sign * 2^(exponent - 15) * 1.mantissa, or 2^-14 * 0.mantissa when the exponent is 0.
double HalfByDefinition(uint16_t bits) {
  const int sign = bits >> 15;
  const int exponent = (bits >> 10) & 0x1F;
  const int mantissa = bits & 0x3FF;
  double magnitude;
  if (exponent == 0x1F) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else if (exponent == 0) {
    magnitude = std::ldexp(mantissa / 1024.0, -14);
  } else {
    magnitude = std::ldexp(1.0 + mantissa / 1024.0, exponent - 15);
  }
  return sign ? -magnitude : magnitude;
}

// The value of bfloat16 bits by definition: 8-bit exponent biased by 127, 7-bit mantissa.
double BFloat16ByDefinition(uint16_t bits) {
  const int sign = bits >> 15;
  const int exponent = (bits >> 7) & 0xFF;
  const int mantissa = bits & 0x7F;
  double magnitude;
  if (exponent == 0xFF) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else if (exponent == 0) {
    magnitude = std::ldexp(mantissa / 128.0, -126);
  } else {
    magnitude = std::ldexp(1.0 + mantissa / 128.0, exponent - 127);
  }
  return sign ? -magnitude : magnitude;
}

// Every one of the 65,536 bit patterns converts to exactly the float its definition gives, sign
// included (negative zero and negative subnormals too); NaNs stay NaNs.
void ExpectEveryPatternConverts(DataType type, double (*definition)(uint16_t)) {
  std::vector<uint16_t> patterns(65536);
  for (size_t i = 0; i < patterns.size(); ++i) patterns[i] = static_cast<uint16_t>(i);
  const std::vector<float> values = Make<uint16_t>(type, patterns).ToFloats();
  ASSERT_EQ(values.size(), patterns.size());
  int failures = 0;
  for (size_t i = 0; i < patterns.size() && failures < 10; ++i) {
    const double expected = definition(patterns[i]);
    const bool same = std::isnan(expected) ? std::isnan(values[i])
                                           : static_cast<double>(values[i]) == expected &&
                                                 std::signbit(values[i]) == std::signbit(expected);
    if (!same) {
      ++failures;
      ADD_FAILURE() << DataTypeName(type) << " bits 0x" << std::hex << patterns[i] << std::dec
                    << ": expected " << expected << ", got " << values[i];
    }
  }
}

TEST(Attribute, EveryFloat16PatternConverts) {
  ExpectEveryPatternConverts(DataType::kFloat16, HalfByDefinition);
}

TEST(Attribute, EveryBFloat16PatternConverts) {
  ExpectEveryPatternConverts(DataType::kBFloat16, BFloat16ByDefinition);
}

// FloatToBFloat16 against the definition, on a million random bit patterns: the nearer of the
// two bfloat16 values around x (compared in double), the even one on a tie; past the largest
// finite bfloat16 (by at least half a step) infinity; NaN a NaN.
TEST(Attribute, FloatToBFloat16RoundsToTheNearestTiesToEven) {
  uint32_t state = 12345;
  int failures = 0;
  for (int i = 0; i < 1000000 && failures < 10; ++i) {
    state = state * 1664525u + 1013904223u;
    float x;
    std::memcpy(&x, &state, sizeof(x));
    const uint16_t got = FloatToBFloat16(x);
    if (std::isnan(x)) {
      if (!std::isnan(BFloat16ToFloat(got))) ++failures, ADD_FAILURE() << "NaN became a number";
      continue;
    }
    const uint16_t below = static_cast<uint16_t>(state >> 16);  // truncation: toward zero
    const uint16_t above = static_cast<uint16_t>(below + 1);    // the next one away from zero
    const double distance_below = std::fabs(double{x} - BFloat16ToFloat(below));
    // Infinity stands, in IEEE rounding, where 2^128 would be: the step after the largest value.
    const double value_above = (above & 0x7FFF) == 0x7F80 ? std::copysign(std::ldexp(1.0, 128), x)
                                                          : double{BFloat16ToFloat(above)};
    const double distance_above = std::fabs(double{x} - value_above);
    const uint16_t expected = distance_below < distance_above   ? below
                              : distance_above < distance_below ? above
                              : (below & 1) == 0                ? below
                                                                : above;
    if (got != expected) {
      ++failures;
      ADD_FAILURE() << "bits 0x" << std::hex << state << ": expected 0x" << expected << ", got 0x"
                    << got;
    }
  }
  EXPECT_EQ(FloatToBFloat16(1.0f), 0x3F80);
  EXPECT_EQ(FloatToBFloat16(-0.0f), 0x8000);
  EXPECT_EQ(FloatToBFloat16(std::numeric_limits<float>::max()), 0x7F80);  // rounds to infinity
  EXPECT_EQ(FloatToBFloat16(-std::numeric_limits<float>::infinity()), 0xFF80);
}

TEST(Attribute, BFloat16AndFloat64Convert) {
  EXPECT_EQ(Make<uint16_t>(DataType::kBFloat16, {0x3F80, 0xC040}).ToFloats(),
            (std::vector<float>{1.0f, -3.0f}));
  EXPECT_EQ(Make<double>(DataType::kFloat64, {0.25, -8.0}).ToFloats(),
            (std::vector<float>{0.25f, -8.0f}));
}

TEST(Attribute, IntegersAndBoolsConvert) {
  EXPECT_EQ(Make<int64_t>(DataType::kInt64, {-3, 7}).ToFloats(), (std::vector<float>{-3, 7}));
  EXPECT_EQ(Make<int32_t>(DataType::kInt32, {5}).ToFloats(), std::vector<float>{5});
  EXPECT_EQ(Make<int16_t>(DataType::kInt16, {-9}).ToFloats(), std::vector<float>{-9});
  EXPECT_EQ(Make<int8_t>(DataType::kInt8, {-128}).ToFloats(), std::vector<float>{-128});
  EXPECT_EQ(Make<uint8_t>(DataType::kUInt8, {255}).ToFloats(), std::vector<float>{255});
  EXPECT_EQ(Make<uint8_t>(DataType::kBool, {0, 1, 2}).ToFloats(), (std::vector<float>{0, 1, 1}));
}

TEST(Attribute, RejectsComplexValues) {
  Attribute attribute = Make<float>(DataType::kComplex64, {1.0f, 2.0f});
  attribute.shape = {1};  // one complex number: two floats
  try {
    attribute.ToFloats();
    FAIL();
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "cannot compute with c64 weights: only real types convert to f32");
  }
}

TEST(Attribute, RejectsBytesThatDisagreeWithTheShape) {
  Attribute attribute = Make<float>(DataType::kFloat32, {1.0f, 2.0f});
  attribute.shape = {3};
  try {
    attribute.ToFloats();
    FAIL();
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "attribute holds 8 bytes but its shape and dtype declare 12");
  }
}

}  // namespace
}  // namespace lumen
