#include "layer/arithmetic/expression_parser.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

#include "base/parse_number.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// A function's spelling in pnnx, what it is, and how many arguments it takes.
struct FunctionInfo {
  const char* name;
  ExpressionFunction function;
  int arity;
};

constexpr FunctionInfo kFunctions[] = {
    {"add", ExpressionFunction::kAdd, 2},
    {"sub", ExpressionFunction::kSub, 2},
    {"mul", ExpressionFunction::kMul, 2},
    {"div", ExpressionFunction::kDiv, 2},
    {"pow", ExpressionFunction::kPow, 2},
    {"max", ExpressionFunction::kMaximum, 2},
    {"maximum", ExpressionFunction::kMaximum, 2},
    {"min", ExpressionFunction::kMinimum, 2},
    {"minimum", ExpressionFunction::kMinimum, 2},
    {"floor_divide", ExpressionFunction::kFloorDivide, 2},
    {"remainder", ExpressionFunction::kRemainder, 2},
    {"fmod", ExpressionFunction::kFmod, 2},
    {"atan2", ExpressionFunction::kAtan2, 2},
    {"logaddexp", ExpressionFunction::kLogAddExp, 2},
    {"neg", ExpressionFunction::kNeg, 1},
    {"abs", ExpressionFunction::kAbs, 1},
    {"sqrt", ExpressionFunction::kSqrt, 1},
    {"rsqrt", ExpressionFunction::kRsqrt, 1},
    {"exp", ExpressionFunction::kExp, 1},
    {"expm1", ExpressionFunction::kExpm1, 1},
    {"log", ExpressionFunction::kLog, 1},
    {"log10", ExpressionFunction::kLog10, 1},
    {"log1p", ExpressionFunction::kLog1p, 1},
    {"sin", ExpressionFunction::kSin, 1},
    {"cos", ExpressionFunction::kCos, 1},
    {"tan", ExpressionFunction::kTan, 1},
    {"asin", ExpressionFunction::kAsin, 1},
    {"acos", ExpressionFunction::kAcos, 1},
    {"atan", ExpressionFunction::kAtan, 1},
    {"sinh", ExpressionFunction::kSinh, 1},
    {"cosh", ExpressionFunction::kCosh, 1},
    {"tanh", ExpressionFunction::kTanh, 1},
    {"asinh", ExpressionFunction::kAsinh, 1},
    {"acosh", ExpressionFunction::kAcosh, 1},
    {"atanh", ExpressionFunction::kAtanh, 1},
    {"erf", ExpressionFunction::kErf, 1},
    {"ceil", ExpressionFunction::kCeil, 1},
    {"floor", ExpressionFunction::kFloor, 1},
    {"round", ExpressionFunction::kRound, 1},
    {"trunc", ExpressionFunction::kTrunc, 1},
    {"sign", ExpressionFunction::kSign, 1},
    {"square", ExpressionFunction::kSquare, 1},
    {"reciprocal", ExpressionFunction::kReciprocal, 1},
    {"identity", ExpressionFunction::kIdentity, 1},
    {"eq", ExpressionFunction::kEqual, 2},
    {"ne", ExpressionFunction::kNotEqual, 2},
    {"lt", ExpressionFunction::kLess, 2},
    {"le", ExpressionFunction::kLessEqual, 2},
    {"gt", ExpressionFunction::kGreater, 2},
    {"ge", ExpressionFunction::kGreaterEqual, 2},
    {"logical_and", ExpressionFunction::kLogicalAnd, 2},
    {"logical_or", ExpressionFunction::kLogicalOr, 2},
    {"logical_xor", ExpressionFunction::kLogicalXor, 2},
    {"logical_not", ExpressionFunction::kLogicalNot, 1},
    {"and", ExpressionFunction::kBitwiseAnd, 2},
    {"or", ExpressionFunction::kBitwiseOr, 2},
    {"xor", ExpressionFunction::kBitwiseXor, 2},
    {"bitwise_not", ExpressionFunction::kBitwiseNot, 1},
    {"lshift", ExpressionFunction::kLeftShift, 2},
    {"rshift", ExpressionFunction::kRightShift, 2},
};

// Names pnnx can write that only make sense for integer or shape arithmetic.
constexpr const char* kUnsupportedFunctions[] = {
    "size", "int", "torch.long", "torch.int", "torch.bool",
};

// The function pnnx spells `name`, or null.
const FunctionInfo* FindFunction(const std::string& name) {
  const auto* found = std::find_if(std::begin(kFunctions), std::end(kFunctions),
                                   [&](const FunctionInfo& info) { return name == info.name; });
  return found == std::end(kFunctions) ? nullptr : found;
}

// One piece of the text: its kind, its characters and where it starts (for messages).
struct Token {
  enum class Kind { kInput, kNumber, kName, kOpen, kClose, kComma, kOpenList, kCloseList, kEnd };
  Kind kind;
  std::string text;
  size_t position;
};

// Tokenizes one expression, then parses it by recursive descent (one function per grammar rule).
class Parser {
 public:
  // Tokenizes `text`, which must outlive the parser.
  explicit Parser(const std::string& text) : text_(text) { Tokenize(); }

  // Parses the whole text as one expression.
  ExpressionNode ParseWhole() {
    if (IsFlattened()) return ParseFlattenedWhole();
    ExpressionNode node = ParseNode();
    if (Peek().kind != Token::Kind::kEnd) Fail(Peek().position, "unexpected text after the end");
    return node;
  }

 private:
  [[noreturn]] void Fail(size_t position, const std::string& message) const {
    // A hostile expression can be megabytes long: quote only its start.
    constexpr size_t kQuoted = 120;
    const std::string quoted =
        text_.size() <= kQuoted
            ? text_
            : text_.substr(0, kQuoted) + "... (" + std::to_string(text_.size()) + " characters)";
    throw Error(Concat("expression '", quoted, "': ", message, " at position ", position));
  }

  // Counts the nesting of ParseNode calls and refuses to go deeper than kMaxExpressionDepth, so
  // that a hostile file gets an error instead of a stack overflow.
  class DepthGuard {
   public:
    explicit DepthGuard(Parser* parser) : parser_(parser) {
      if (++parser_->depth_ > kMaxExpressionDepth) {
        parser_->Fail(parser_->Peek().position,
                      Concat("nested more than ", kMaxExpressionDepth, " levels deep"));
      }
    }
    ~DepthGuard() { --parser_->depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    Parser* parser_;
  };

  // pnnx writes a complex constant as `1.2e+00-9.0e-01j`: if the number that ends at `end` is
  // one's real part (or is followed by `j`), refuses it by name.
  void RefuseComplexNumber(size_t start, size_t end) const {
    size_t i = end;
    while (i < text_.size() && std::string("(),[]").find(text_[i]) == std::string::npos) ++i;
    if (i > start && text_[i - 1] == 'j') {
      Fail(start, Concat("complex constant '", text_.substr(start, i - start),
                         "': Lumen computes real float32 tensors only"));
    }
  }

  void Tokenize() {
    // LESSON 08 BEGIN: split the text into inputs, numbers, names and punctuation
    size_t i = 0;
    while (i < text_.size()) {
      const char c = text_[i];
      const size_t start = i;
      const auto is_digit = [&](size_t at) {
        return at < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at]));
      };
      if (c == '(' || c == ')' || c == ',' || c == '[' || c == ']') {
        const Token::Kind kind = c == '('   ? Token::Kind::kOpen
                                 : c == ')' ? Token::Kind::kClose
                                 : c == ',' ? Token::Kind::kComma
                                 : c == '[' ? Token::Kind::kOpenList
                                            : Token::Kind::kCloseList;
        tokens_.push_back({kind, std::string(1, c), start});
        ++i;
      } else if (c == '@') {
        ++i;
        while (is_digit(i)) ++i;
        if (i == start + 1) Fail(start, "'@' must be followed by an input number");
        tokens_.push_back({Token::Kind::kInput, text_.substr(start + 1, i - start - 1), start});
      } else if (is_digit(i) || ((c == '-' || c == '+' || c == '.') &&
                                 (is_digit(i + 1) || (i + 1 < text_.size() && text_[i + 1] == '.' &&
                                                      is_digit(i + 2))))) {
        // A number: sign, digits and dot, then an optional exponent with its own sign.
        ++i;
        while (i < text_.size() && (is_digit(i) || text_[i] == '.')) ++i;
        if (i < text_.size() && (text_[i] == 'e' || text_[i] == 'E')) {
          ++i;
          if (i < text_.size() && (text_[i] == '-' || text_[i] == '+')) ++i;
          while (is_digit(i)) ++i;
        }
        RefuseComplexNumber(start, i);
        tokens_.push_back({Token::Kind::kNumber, text_.substr(start, i - start), start});
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '-') {
        ++i;  // '-' starts a name only for "-inf" / "-nan"
        while (i < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[i])) ||
                                    text_[i] == '_' || text_[i] == '.')) {
          ++i;
        }
        const std::string name = text_.substr(start, i - start);
        const bool is_number = name == "inf" || name == "-inf" || name == "nan" || name == "-nan";
        tokens_.push_back({is_number ? Token::Kind::kNumber : Token::Kind::kName, name, start});
      } else {
        Fail(start, Concat("unexpected character '", c, "'"));
      }
    }
    tokens_.push_back({Token::Kind::kEnd, "", text_.size()});
    // LESSON 08 END
  }

  const Token& Peek() const { return tokens_[next_]; }
  const Token& Take() { return tokens_[next_ == tokens_.size() - 1 ? next_ : next_++]; }

  void Expect(Token::Kind kind, const char* what) {
    const Token& token = Take();
    if (token.kind != kind) Fail(token.position, Concat("expected ", what));
  }

  ExpressionNode ParseNode() {
    const DepthGuard depth(this);
    // LESSON 08 BEGIN: an input, a number, a constant or a function call
    const Token& token = Take();
    ExpressionNode node;
    node.position = token.position;
    switch (token.kind) {
      case Token::Kind::kInput: {
        int64_t index = 0;
        if (!ParseInteger(token.text, &index) || index > kMaxExpressionInput) {
          Fail(token.position, Concat("input number @", token.text, " is out of range (at most @",
                                      kMaxExpressionInput, ")"));
        }
        node.kind = ExpressionNode::Kind::kInput;
        node.input_index = static_cast<int>(index);
        return node;
      }
      case Token::Kind::kNumber:
        node.kind = ExpressionNode::Kind::kConstant;
        if (!ParseFloat(token.text, &node.constant)) {
          Fail(token.position, Concat("malformed number '", token.text, "'"));
        }
        return node;
      case Token::Kind::kName:
        if (token.text == "True" || token.text == "False") {
          node.kind = ExpressionNode::Kind::kConstant;
          node.constant = token.text == "True" ? 1.0f : 0.0f;
          return node;
        }
        return ParseCall(token);
      case Token::Kind::kOpenList:
        Fail(token.position,
             "lists only appear in dynamic-shape expressions, which Lumen does not support "
             "(re-export the model with static shapes)");
      default:
        Fail(token.position, "expected an input (@N), a number or a function call");
    }
    // LESSON 08 END
  }

  ExpressionNode ParseCall(const Token& name) {
    // LESSON 08 BEGIN: name ( argument, ... ) with the right number of arguments
    for (const char* unsupported : kUnsupportedFunctions) {
      if (name.text == unsupported) {
        Fail(name.position, Concat("'", name.text,
                                   "' is integer or shape arithmetic, which only "
                                   "dynamic-shape exports use; Lumen needs static shapes"));
      }
    }
    const auto* found =
        std::find_if(std::begin(kFunctions), std::end(kFunctions),
                     [&](const FunctionInfo& info) { return name.text == info.name; });
    if (found == std::end(kFunctions)) {
      Fail(name.position, Concat("unknown function '", name.text, "'"));
    }
    ExpressionNode node;
    node.kind = ExpressionNode::Kind::kCall;
    node.function = found->function;
    node.position = name.position;
    Expect(Token::Kind::kOpen, Concat("'(' after '", name.text, "'").c_str());
    node.arguments.push_back(ParseNode());
    while (Peek().kind == Token::Kind::kComma) {
      Take();
      node.arguments.push_back(ParseNode());
    }
    Expect(Token::Kind::kClose, "',' or ')'");
    if (static_cast<int>(node.arguments.size()) != found->arity) {
      Fail(name.position, Concat("'", name.text, "' takes ", found->arity, " argument(s), got ",
                                 node.arguments.size()));
    }
    return node;
    // LESSON 08 END
  }

  // True when a function the language knows is not followed by '(': pnnx's flattened form.
  bool IsFlattened() const {
    for (size_t i = 0; i + 1 < tokens_.size(); ++i) {
      if (tokens_[i].kind == Token::Kind::kName && FindFunction(tokens_[i].text) != nullptr &&
          tokens_[i + 1].kind != Token::Kind::kOpen) {
        return true;
      }
    }
    return false;
  }

  // Reads the flattened form as pnnx does: without its separators, a prefix expression.
  ExpressionNode ParseFlattenedWhole() {
    std::vector<Token> significant;
    for (const Token& token : tokens_) {
      const bool separator = token.kind == Token::Kind::kOpen ||
                             token.kind == Token::Kind::kClose || token.kind == Token::Kind::kComma;
      if (!separator) significant.push_back(token);
    }
    tokens_ = std::move(significant);
    next_ = 0;
    ExpressionNode node = ParseFlattenedNode();
    if (Peek().kind != Token::Kind::kEnd) Fail(Peek().position, "unexpected text after the end");
    return node;
  }

  // One prefix expression: a call takes the next `arity` expressions as its arguments.
  ExpressionNode ParseFlattenedNode() {
    const DepthGuard depth(this);
    const Token& token = Peek();
    if (token.kind != Token::Kind::kName || token.text == "True" || token.text == "False") {
      return ParseNode();  // an input, a number or a list, read as always
    }
    Take();
    const FunctionInfo* found = FindFunction(token.text);
    if (found == nullptr) {
      Fail(token.position, Concat("unknown function '", token.text, "'"));
    }
    ExpressionNode node;
    node.kind = ExpressionNode::Kind::kCall;
    node.function = found->function;
    node.position = token.position;
    for (int i = 0; i < found->arity; ++i) {
      if (Peek().kind == Token::Kind::kEnd) {
        Fail(token.position,
             Concat("'", token.text, "' takes ", found->arity, " argument(s), got ", i));
      }
      node.arguments.push_back(ParseFlattenedNode());
    }
    return node;
  }

  const std::string& text_;
  std::vector<Token> tokens_;
  size_t next_ = 0;
  int depth_ = 0;  // ParseNode calls under way
};

}  // namespace

bool IsBitwiseExpressionFunction(ExpressionFunction function) {
  using F = ExpressionFunction;
  return function == F::kBitwiseAnd || function == F::kBitwiseOr || function == F::kBitwiseXor ||
         function == F::kBitwiseNot || function == F::kLeftShift || function == F::kRightShift;
}

int ExpressionArity(ExpressionFunction function) {
  for (const FunctionInfo& info : kFunctions) {
    if (info.function == function) return info.arity;
  }
  return 0;
}

const char* ExpressionFunctionName(ExpressionFunction function) {
  for (const FunctionInfo& info : kFunctions) {
    if (info.function == function) return info.name;
  }
  return "?";
}

ExpressionNode ParseExpression(const std::string& text) { return Parser(text).ParseWhole(); }

int CountExpressionInputs(const ExpressionNode& node) {
  if (node.kind == ExpressionNode::Kind::kInput) return node.input_index + 1;
  int count = 0;
  for (const ExpressionNode& argument : node.arguments) {
    count = std::max(count, CountExpressionInputs(argument));
  }
  return count;
}

}  // namespace lumen
