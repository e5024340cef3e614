// RuntimeParameter: every value spelling pnnx writes, the conversions, and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "lumen/base/error.hpp"
#include "lumen/runtime/runtime_parameter.hpp"

namespace lumen {
namespace {

using Type = RuntimeParameter::Type;
using ::testing::HasSubstr;

std::string ParseError(const std::string& text) {
  try {
    RuntimeParameter::Parse(text);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(RuntimeParameter, NoneAndTheEmptyList) {
  EXPECT_EQ(RuntimeParameter::Parse("None").type(), Type::kNone);
  EXPECT_TRUE(RuntimeParameter::Parse("None").IsNone());
  const RuntimeParameter empty = RuntimeParameter::Parse("()");
  EXPECT_TRUE(empty.IsNone());  // pnnx writes () and None interchangeably
  EXPECT_TRUE(empty.AsIntArray().empty());
  EXPECT_TRUE(empty.AsFloatArray().empty());
}

TEST(RuntimeParameter, Booleans) {
  EXPECT_TRUE(RuntimeParameter::Parse("True").AsBool());
  EXPECT_FALSE(RuntimeParameter::Parse("False").AsBool());
  EXPECT_TRUE(RuntimeParameter::Parse("1").AsBool());  // pnnx's README writes bias=1
  EXPECT_FALSE(RuntimeParameter::Parse("0").AsBool());
  EXPECT_THROW(RuntimeParameter::Parse("2").AsBool(), Error);
}

TEST(RuntimeParameter, Integers) {
  EXPECT_EQ(RuntimeParameter::Parse("-1").AsInt(), -1);
  EXPECT_EQ(RuntimeParameter::Parse("2147483647").AsInt(), 2147483647);  // an open slice end
  EXPECT_EQ(RuntimeParameter::Parse("-2147483648").AsInt(), -2147483647 - 1);
  EXPECT_EQ(ParseError("2147483648"), "integer '2147483648' does not fit in 32 bits");
  EXPECT_EQ(RuntimeParameter::Parse("3").AsFloat(), 3.0f);  // ints promote to floats
}

TEST(RuntimeParameter, FloatsInBothPnnxSpellings) {
  EXPECT_EQ(RuntimeParameter::Parse("1.000000e-05").AsFloat(), 1e-5f);  // before 2025
  EXPECT_EQ(RuntimeParameter::Parse("1.000000e-5").AsFloat(), 1e-5f);   // after
  EXPECT_EQ(RuntimeParameter::Parse("2.000000e+00").AsFloat(), 2.0f);
  EXPECT_EQ(RuntimeParameter::Parse("2.0").AsFloat(), 2.0f);
  EXPECT_EQ(RuntimeParameter::Parse("0.5").type(), Type::kFloat);
  EXPECT_TRUE(std::isinf(RuntimeParameter::Parse("inf").AsFloat()));
  EXPECT_LT(RuntimeParameter::Parse("-inf").AsFloat(), 0.0f);
  EXPECT_TRUE(std::isnan(RuntimeParameter::Parse("nan").AsFloat()));
  EXPECT_THROW(RuntimeParameter::Parse("2.5").AsInt(), Error);
}

TEST(RuntimeParameter, Lists) {
  EXPECT_EQ(RuntimeParameter::Parse("(3,3)").AsIntArray(), (std::vector<int>{3, 3}));
  EXPECT_EQ(RuntimeParameter::Parse("(5)").AsIntArray(), std::vector<int>{5});  // not the int 5
  EXPECT_EQ(RuntimeParameter::Parse("(5)").type(), Type::kIntArray);
  EXPECT_EQ(RuntimeParameter::Parse("(0,1,3,4,2)").AsIntArray(), (std::vector<int>{0, 1, 3, 4, 2}));
  EXPECT_EQ(RuntimeParameter::Parse("(2.000000e+00,2.0)").AsFloatArray(),
            (std::vector<float>{2.0f, 2.0f}));
  EXPECT_EQ(RuntimeParameter::Parse("(1,2)").AsFloatArray(), (std::vector<float>{1.0f, 2.0f}));
  EXPECT_EQ(RuntimeParameter::Parse("(1,2.5)").type(), Type::kFloatArray);
  EXPECT_THROW(RuntimeParameter::Parse("(1,2.5)").AsIntArray(), Error);
  EXPECT_EQ(RuntimeParameter::Parse("[1,2]").AsIntArray(), (std::vector<int>{1, 2}));
}

TEST(RuntimeParameter, StringsAndStringLists) {
  EXPECT_EQ(RuntimeParameter::Parse("nearest").AsString(), "nearest");
  EXPECT_EQ(RuntimeParameter::Parse("add(@0,@1)").AsString(), "add(@0,@1)");
  const RuntimeParameter list = RuntimeParameter::Parse("(None,7)");
  EXPECT_EQ(list.type(), Type::kStringArray);
  EXPECT_EQ(list.AsStringArray(), (std::vector<std::string>{"None", "7"}));
}

TEST(RuntimeParameter, RejectsNumbersWithTrailingGarbage) {
  // pnnx's own reader turns "1x1" into the integer 1; a typo must not become a silent value.
  EXPECT_EQ(ParseError("1x1"), "malformed number '1x1'");
  EXPECT_EQ(ParseError("(3,3x)"), "malformed number '3x'");
  EXPECT_EQ(ParseError("(1,,2)"), "list '(1,,2)' has an empty element");
  EXPECT_EQ(ParseError("(1,2"), "list '(1,2' is not closed");
}

TEST(RuntimeParameter, WrongTypeMessagesNameWhatWasFound) {
  EXPECT_THAT(ParseError("x"), "");
  try {
    RuntimeParameter::Parse("(2,2)").AsInt();
    FAIL();
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "expected an int, got int list '(2,2)'");
  }
}

TEST(RuntimeParameter, BuildersWriteTheirText) {
  EXPECT_EQ(RuntimeParameter::FromIntArray({1, -1}).text(), "(1,-1)");
  EXPECT_EQ(RuntimeParameter::FromBool(true).text(), "True");
  EXPECT_EQ(RuntimeParameter::FromInt(7).AsInt(), 7);
  EXPECT_EQ(RuntimeParameter::FromString("zeros").AsString(), "zeros");
  EXPECT_EQ(RuntimeParameter::FromFloatArray({0.5f}).AsFloatArray(), std::vector<float>{0.5f});
}

}  // namespace
}  // namespace lumen
