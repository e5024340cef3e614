// The pnnx.Expression language: tokens, nesting, numbers in every spelling, and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "layer/arithmetic/expression_parser.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

using ::testing::HasSubstr;

std::string ParseError(const std::string& text) {
  try {
    ParseExpression(text);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(ExpressionParser, ParsesACallOfInputs) {
  const ExpressionNode node = ParseExpression("add(@0,@1)");
  ASSERT_EQ(node.kind, ExpressionNode::Kind::kCall);
  EXPECT_EQ(node.function, ExpressionFunction::kAdd);
  ASSERT_EQ(node.arguments.size(), 2u);
  EXPECT_EQ(node.arguments[0].kind, ExpressionNode::Kind::kInput);
  EXPECT_EQ(node.arguments[1].input_index, 1);
  EXPECT_EQ(CountExpressionInputs(node), 2);
}

TEST(ExpressionParser, ParsesNestedCallsInOrder) {
  // YOLOv5's box decoding: ((x * 2) + grid) * 8
  const ExpressionNode node = ParseExpression("mul(add(mul(@0,2),@1),8.0)");
  EXPECT_EQ(node.function, ExpressionFunction::kMul);
  const ExpressionNode& inner = node.arguments[0];
  EXPECT_EQ(inner.function, ExpressionFunction::kAdd);
  EXPECT_EQ(inner.arguments[0].function, ExpressionFunction::kMul);
  EXPECT_EQ(inner.arguments[0].arguments[1].constant, 2.0f);
  EXPECT_EQ(node.arguments[1].constant, 8.0f);
  EXPECT_EQ(inner.arguments[1].input_index, 1);
}

TEST(ExpressionParser, ReadsNumbersInEverySpelling) {
  const auto constant = [](const std::string& number) {
    const ExpressionNode node = ParseExpression("neg(" + number + ")");
    return node.arguments.at(0).constant;
  };
  EXPECT_EQ(constant("2"), 2.0f);
  EXPECT_EQ(constant("-1"), -1.0f);
  EXPECT_EQ(constant("2.000000e+00"), 2.0f);  // old pnnx
  EXPECT_EQ(constant("1.0e-5"), 1.0e-5f);     // new pnnx
  EXPECT_EQ(constant("-0.5"), -0.5f);
  EXPECT_EQ(constant(".25"), 0.25f);
  EXPECT_TRUE(std::isinf(constant("inf")));
  EXPECT_TRUE(std::isinf(constant("-inf")) && constant("-inf") < 0);
  EXPECT_TRUE(std::isnan(constant("nan")));
  EXPECT_EQ(constant("True"), 1.0f);
  EXPECT_EQ(constant("False"), 0.0f);
}

TEST(ExpressionParser, KnowsEveryFunctionWithItsArity) {
  const char* unary[] = {
      "neg",   "abs",   "sqrt",  "rsqrt",  "exp",        "expm1",       "log",        "log10",
      "log1p", "sin",   "cos",   "tan",    "asin",       "acos",        "atan",       "sinh",
      "cosh",  "tanh",  "asinh", "acosh",  "atanh",      "erf",         "ceil",       "floor",
      "round", "trunc", "sign",  "square", "reciprocal", "logical_not", "bitwise_not"};
  for (const char* name : unary) {
    const ExpressionNode node = ParseExpression(std::string(name) + "(@0)");
    EXPECT_EQ(ExpressionArity(node.function), 1) << name;
    EXPECT_STREQ(ExpressionFunctionName(node.function), name);
  }
  const char* binary[] = {
      "add",        "sub",         "mul",          "div",  "pow",       "max",    "min",
      "maximum",    "minimum",     "floor_divide", "fmod", "remainder", "atan2",  "logaddexp",
      "eq",         "ne",          "lt",           "le",   "gt",        "ge",     "logical_and",
      "logical_or", "logical_xor", "and",          "or",   "xor",       "lshift", "rshift"};
  for (const char* name : binary) {
    EXPECT_EQ(ExpressionArity(ParseExpression(std::string(name) + "(@0,@1)").function), 2) << name;
  }
}

TEST(ExpressionParser, ReportsAnUnknownFunctionWithItsPosition) {
  EXPECT_EQ(ParseError("add(@0,frobnicate(@1))"),
            "expression 'add(@0,frobnicate(@1))': unknown function 'frobnicate' at position 7");
}

TEST(ExpressionParser, ReportsAWrongArgumentCount) {
  EXPECT_EQ(ParseError("add(@0)"),
            "expression 'add(@0)': 'add' takes 2 argument(s), got 1 at position 0");
  EXPECT_THAT(ParseError("neg(@0,@1)"), HasSubstr("'neg' takes 1 argument(s), got 2"));
}

TEST(ExpressionParser, ReportsStrayAndMissingCharacters) {
  EXPECT_THAT(ParseError("add(@0,@1)x"), HasSubstr("unexpected text after the end at position 10"));
  EXPECT_THAT(ParseError("add(@0;@1)"), HasSubstr("unexpected character ';' at position 6"));
  EXPECT_THAT(ParseError("add(@0,@1"), HasSubstr("expected ',' or ')' at position 9"));
  EXPECT_THAT(ParseError("add(@,@1)"), HasSubstr("'@' must be followed by an input number"));
  EXPECT_THAT(ParseError(""), HasSubstr("expected an input (@N), a number or a function call"));
  EXPECT_THAT(ParseError("1.2.3"), HasSubstr("malformed number '1.2.3'"));
}

TEST(ExpressionParser, RejectsDynamicShapeArithmetic) {
  EXPECT_THAT(ParseError("size(@0,1)"),
              HasSubstr("'size' is integer or shape arithmetic, which only dynamic-shape exports "
                        "use; Lumen needs static shapes"));
  EXPECT_THAT(ParseError("[1,2]"), HasSubstr("lists only appear in dynamic-shape expressions"));
}

TEST(ExpressionParser, AcceptsDottedNamesAndRefusesThemAsShapeArithmetic) {
  // pnnx writes dtypes such as torch.long in integer arithmetic: one name, dot included.
  EXPECT_THAT(ParseError("mul(@0,torch.long)"),
              HasSubstr("'torch.long' is integer or shape arithmetic"));
}

// pnnx writes `expm1,sub(@0,0.5)` for torch.expm1(x - 0.5): its own reader treats '(' ')' ','
// alike, as separators of a prefix expression, and so does Lumen when a known function has no '('.
TEST(ExpressionParser, ReadsPnnxsFlattenedPrefixForm) {
  const ExpressionNode node = ParseExpression("expm1,sub(@0,0.5)");
  ASSERT_EQ(node.kind, ExpressionNode::Kind::kCall);
  EXPECT_EQ(node.function, ExpressionFunction::kExpm1);
  ASSERT_EQ(node.arguments.size(), 1u);
  EXPECT_EQ(node.arguments[0].function, ExpressionFunction::kSub);
  EXPECT_EQ(node.arguments[0].arguments[1].constant, 0.5f);
  // Nested inside a call whose parentheses pnnx closed too early: mul(log1p(@0),2).
  const ExpressionNode nested = ParseExpression("mul(log1p,@0),2");
  EXPECT_EQ(nested.function, ExpressionFunction::kMul);
  EXPECT_EQ(nested.arguments[0].function, ExpressionFunction::kLog1p);
  EXPECT_EQ(nested.arguments[0].arguments[0].input_index, 0);
  EXPECT_EQ(nested.arguments[1].constant, 2.0f);
  EXPECT_THAT(ParseError("log1p,"), HasSubstr("'log1p' takes 1 argument(s), got 0"));
  EXPECT_THAT(ParseError("log1p,@0,@1"), HasSubstr("unexpected text after the end"));
}

TEST(ExpressionParser, RefusesComplexConstantsByName) {
  EXPECT_THAT(ParseError("sub(@0,0.000000e+00+4.000000e+00j)"),
              HasSubstr("complex constant '0.000000e+00+4.000000e+00j': Lumen computes real "
                        "float32 tensors only at position 7"));
  EXPECT_THAT(ParseError("mul(@0,2j)"), HasSubstr("complex constant '2j'"));
}

TEST(ExpressionParser, LimitsTheNesting) {
  const auto nested = [](int calls) {
    std::string text;
    for (int i = 0; i < calls; ++i) text += "neg(";
    text += "@0";
    for (int i = 0; i < calls; ++i) text += ")";
    return text;
  };
  // 255 calls around an input are 256 levels: the deepest allowed.
  EXPECT_EQ(ParseError(nested(kMaxExpressionDepth - 1)), "");
  EXPECT_THAT(ParseError(nested(kMaxExpressionDepth)),
              HasSubstr("nested more than 256 levels deep at position 1024"));
  // Hostile: 20,000 levels once overflowed the stack; now an error quoting only the start.
  const std::string error = ParseError(nested(20000));
  EXPECT_THAT(error, HasSubstr("nested more than 256 levels deep"));
  EXPECT_THAT(error, HasSubstr("... (100002 characters)"));
}

TEST(ExpressionParser, RangeChecksInputNumbers) {
  EXPECT_EQ(CountExpressionInputs(ParseExpression("add(@0,@1000000)")), 1000001);
  EXPECT_THAT(
      ParseError("add(@4294967296,@1)"),
      HasSubstr("input number @4294967296 is out of range (at most @1000000) at position 4"));
  EXPECT_THAT(ParseError("@99999999999999999999999"), HasSubstr("is out of range"));
}

}  // namespace
}  // namespace lumen
