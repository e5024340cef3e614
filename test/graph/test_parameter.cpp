// Parameter: every value spelling pnnx writes, the conversions, and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "graph/parameter.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

using Type = Parameter::Type;
using ::testing::HasSubstr;

std::string ParseError(const std::string& text) {
  try {
    Parameter::Parse(text);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(Parameter, NoneAndTheEmptyList) {
  EXPECT_EQ(Parameter::Parse("None").type(), Type::kNone);
  EXPECT_TRUE(Parameter::Parse("None").IsNone());
  const Parameter empty = Parameter::Parse("()");
  EXPECT_TRUE(empty.IsNone());  // pnnx writes () and None interchangeably
  EXPECT_TRUE(empty.AsIntArray().empty());
  EXPECT_TRUE(empty.AsFloatArray().empty());
}

TEST(Parameter, Booleans) {
  EXPECT_TRUE(Parameter::Parse("True").AsBool());
  EXPECT_FALSE(Parameter::Parse("False").AsBool());
  EXPECT_TRUE(Parameter::Parse("1").AsBool());  // pnnx's README writes bias=1
  EXPECT_FALSE(Parameter::Parse("0").AsBool());
  EXPECT_THROW(Parameter::Parse("2").AsBool(), Error);
}

TEST(Parameter, Integers) {
  EXPECT_EQ(Parameter::Parse("-1").AsInt(), -1);
  EXPECT_EQ(Parameter::Parse("2147483647").AsInt(), 2147483647);  // an open slice end
  EXPECT_EQ(Parameter::Parse("-2147483648").AsInt(), -2147483647 - 1);
  EXPECT_EQ(ParseError("2147483648"), "integer '2147483648' does not fit in 32 bits");
  EXPECT_EQ(Parameter::Parse("3").AsFloat(), 3.0f);  // ints promote to floats
}

TEST(Parameter, FloatsInBothPnnxSpellings) {
  EXPECT_EQ(Parameter::Parse("1.000000e-05").AsFloat(), 1e-5f);  // before 2025
  EXPECT_EQ(Parameter::Parse("1.000000e-5").AsFloat(), 1e-5f);   // after
  EXPECT_EQ(Parameter::Parse("2.000000e+00").AsFloat(), 2.0f);
  EXPECT_EQ(Parameter::Parse("2.0").AsFloat(), 2.0f);
  EXPECT_EQ(Parameter::Parse("0.5").type(), Type::kFloat);
  EXPECT_TRUE(std::isinf(Parameter::Parse("inf").AsFloat()));
  EXPECT_LT(Parameter::Parse("-inf").AsFloat(), 0.0f);
  EXPECT_TRUE(std::isnan(Parameter::Parse("nan").AsFloat()));
  EXPECT_THROW(Parameter::Parse("2.5").AsInt(), Error);
}

TEST(Parameter, Lists) {
  EXPECT_EQ(Parameter::Parse("(3,3)").AsIntArray(), (std::vector<int>{3, 3}));
  EXPECT_EQ(Parameter::Parse("(5)").AsIntArray(), std::vector<int>{5});  // not the int 5
  EXPECT_EQ(Parameter::Parse("(5)").type(), Type::kIntArray);
  EXPECT_EQ(Parameter::Parse("(0,1,3,4,2)").AsIntArray(), (std::vector<int>{0, 1, 3, 4, 2}));
  EXPECT_EQ(Parameter::Parse("(2.000000e+00,2.0)").AsFloatArray(),
            (std::vector<float>{2.0f, 2.0f}));
  EXPECT_EQ(Parameter::Parse("(1,2)").AsFloatArray(), (std::vector<float>{1.0f, 2.0f}));
  EXPECT_EQ(Parameter::Parse("(1,2.5)").type(), Type::kFloatArray);
  EXPECT_THROW(Parameter::Parse("(1,2.5)").AsIntArray(), Error);
  EXPECT_EQ(Parameter::Parse("[1,2]").AsIntArray(), (std::vector<int>{1, 2}));
}

// Tensor.index writes lists of lists (`expr=[[2,1],None]`): the outer list keeps each element's
// text whole, split only at the commas outside brackets, for the layer to parse.
TEST(Parameter, NestedListsKeepTheirElementsWhole) {
  const Parameter nested = Parameter::Parse("[[2,1],[0,1]]");
  EXPECT_EQ(nested.type(), Type::kStringArray);
  EXPECT_EQ(nested.AsStringArray(), (std::vector<std::string>{"[2,1]", "[0,1]"}));
  EXPECT_EQ(Parameter::Parse("[None,None,[1,0]]").AsStringArray(),
            (std::vector<std::string>{"None", "None", "[1,0]"}));
  EXPECT_EQ(Parameter::Parse("[[True,False],(1,(2,3))]").AsStringArray(),
            (std::vector<std::string>{"[True,False]", "(1,(2,3))"}));
  EXPECT_THROW(Parameter::Parse("[[1,2],[3]"), Error);  // unbalanced: '[' opened and not closed
}

TEST(Parameter, StringsAndStringLists) {
  EXPECT_EQ(Parameter::Parse("nearest").AsString(), "nearest");
  EXPECT_EQ(Parameter::Parse("add(@0,@1)").AsString(), "add(@0,@1)");
  const Parameter list = Parameter::Parse("(None,7)");
  EXPECT_EQ(list.type(), Type::kStringArray);
  EXPECT_EQ(list.AsStringArray(), (std::vector<std::string>{"None", "7"}));
}

TEST(Parameter, RejectsNumbersWithTrailingGarbage) {
  // pnnx's own reader turns "1x1" into the integer 1; a typo must not become a silent value.
  EXPECT_EQ(ParseError("1x1"), "malformed number '1x1'");
  EXPECT_EQ(ParseError("(3,3x)"), "malformed number '3x'");
  EXPECT_EQ(ParseError("(1,,2)"), "list '(1,,2)' has an empty element");
  EXPECT_EQ(ParseError("(1,2"), "list '(1,2' is not closed");
}

TEST(Parameter, WrongTypeMessagesNameWhatWasFound) {
  EXPECT_THAT(ParseError("x"), "");
  try {
    Parameter::Parse("(2,2)").AsInt();
    FAIL();
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "expected an int, got int list '(2,2)'");
  }
}

TEST(Parameter, BuildersWriteTheirText) {
  EXPECT_EQ(Parameter::FromIntArray({1, -1}).text(), "(1,-1)");
  EXPECT_EQ(Parameter::FromBool(true).text(), "True");
  EXPECT_EQ(Parameter::FromInt(7).AsInt(), 7);
  EXPECT_EQ(Parameter::FromString("zeros").AsString(), "zeros");
  EXPECT_EQ(Parameter::FromFloatArray({0.5f}).AsFloatArray(), std::vector<float>{0.5f});
}

}  // namespace
}  // namespace lumen
