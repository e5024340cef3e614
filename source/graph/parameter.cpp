#include "graph/parameter.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iomanip>
#include <limits>
#include <sstream>

#include "base/parse_number.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// A token that starts like a number must be one: pnnx's own reader turns "1x1" into 1.
bool LooksNumeric(const std::string& text) {
  if (text.empty()) return false;
  const size_t first = (text[0] == '-' || text[0] == '+') ? 1 : 0;
  return first < text.size() && (text[first] >= '0' && text[first] <= '9');
}

// What one scalar token is, before the list logic combines elements.
struct Scalar {
  enum class Kind { kInt, kFloat, kString } kind;
  int int_value = 0;
  float float_value = 0.0f;
};

Scalar ClassifyScalar(const std::string& text) {
  int64_t integer = 0;
  if (ParseInteger(text, &integer)) {
    if (integer < std::numeric_limits<int32_t>::min() ||
        integer > std::numeric_limits<int32_t>::max()) {
      throw Error(Concat("integer '", text, "' does not fit in 32 bits"));
    }
    return {Scalar::Kind::kInt, static_cast<int>(integer), static_cast<float>(integer)};
  }
  float real = 0.0f;
  if (ParseFloat(text, &real)) return {Scalar::Kind::kFloat, 0, real};
  if (LooksNumeric(text)) throw Error(Concat("malformed number '", text, "'"));
  return {Scalar::Kind::kString, 0, 0.0f};
}

std::string JoinList(const std::vector<std::string>& items) {
  std::string text = "(";
  for (size_t i = 0; i < items.size(); ++i) text += (i ? "," : "") + items[i];
  return text + ")";
}

// The shortest decimal spelling (from 6 significant digits up to 9, which always suffice) that
// reads back as exactly `value`: a parameter made here and written to a file (the quantiser's
// scales) keeps its value.
std::string FloatText(float value) {
  std::string text;
  for (int digits = 6; digits <= 9; ++digits) {
    std::ostringstream stream;
    stream << std::setprecision(digits) << value;
    text = stream.str();
    if (!std::isfinite(value) || std::strtof(text.c_str(), nullptr) == value) break;
  }
  return text;
}

}  // namespace

Parameter Parameter::Parse(const std::string& text) {
  // LESSON 03 BEGIN: None, bool, int, float, string or a list of them
  Parameter parameter;
  parameter.text_ = text;
  if (text == "None") return parameter;
  if (text == "True" || text == "False") {
    parameter.type_ = Type::kBool;
    parameter.bool_value_ = text == "True";
    return parameter;
  }
  const bool is_list = !text.empty() && (text.front() == '(' || text.front() == '[');
  if (!is_list) {
    const Scalar scalar = ClassifyScalar(text);
    if (scalar.kind == Scalar::Kind::kInt) {
      parameter.type_ = Type::kInt;
      parameter.int_value_ = scalar.int_value;
      parameter.float_value_ = scalar.float_value;
    } else if (scalar.kind == Scalar::Kind::kFloat) {
      parameter.type_ = Type::kFloat;
      parameter.float_value_ = scalar.float_value;
    } else {
      parameter.type_ = Type::kString;
      parameter.string_values_ = {text};
    }
    return parameter;
  }

  const char closing = text.front() == '(' ? ')' : ']';
  if (text.back() != closing) throw Error(Concat("list '", text, "' is not closed"));
  const std::string body = text.substr(1, text.size() - 2);
  parameter.type_ = Type::kIntArray;  // the empty list `()` stays an empty int list
  if (body.empty()) return parameter;

  // Split at the commas outside nested brackets: Tensor.index writes a list of lists
  // (`expr=[[2,1],None]`), whose elements stay whole, as strings, for the layer to parse.
  std::vector<std::string> elements(1);
  int depth = 0;
  bool nested = false;
  for (const char c : body) {
    if (c == '[' || c == '(') {
      ++depth;
      nested = true;
    } else if (c == ']' || c == ')') {
      --depth;
    }
    if (c == ',' && depth == 0) {
      elements.emplace_back();
    } else {
      elements.back() += c;
    }
  }
  if (depth != 0) throw Error(Concat("list '", text, "' has unbalanced brackets"));
  if (nested) {
    parameter.type_ = Type::kStringArray;
    parameter.string_values_ = elements;
    return parameter;
  }

  bool all_int = true;
  bool all_numeric = true;
  for (const std::string& item : elements) {
    if (item.empty()) throw Error(Concat("list '", text, "' has an empty element"));
    const Scalar scalar = ClassifyScalar(item);
    all_int = all_int && scalar.kind == Scalar::Kind::kInt;
    all_numeric = all_numeric && scalar.kind != Scalar::Kind::kString;
    parameter.int_values_.push_back(scalar.int_value);
    parameter.float_values_.push_back(scalar.kind == Scalar::Kind::kInt
                                          ? static_cast<float>(scalar.int_value)
                                          : scalar.float_value);
  }
  parameter.string_values_ = elements;
  if (all_int) {
    parameter.type_ = Type::kIntArray;
  } else if (all_numeric) {
    parameter.type_ = Type::kFloatArray;
  } else {
    parameter.type_ = Type::kStringArray;
  }
  return parameter;
  // LESSON 03 END
}

Parameter Parameter::FromBool(bool value) { return Parse(value ? "True" : "False"); }

Parameter Parameter::FromInt(int value) { return Parse(std::to_string(value)); }

Parameter Parameter::FromFloat(float value) {
  Parameter parameter;
  parameter.type_ = Type::kFloat;
  parameter.float_value_ = value;
  parameter.text_ = FloatText(value);
  return parameter;
}

Parameter Parameter::FromString(const std::string& value) {
  Parameter parameter;
  parameter.type_ = Type::kString;
  parameter.string_values_ = {value};
  parameter.text_ = value;
  return parameter;
}

Parameter Parameter::FromIntArray(const std::vector<int>& values) {
  std::vector<std::string> items;
  for (int value : values) items.push_back(std::to_string(value));
  return Parse(JoinList(items));
}

Parameter Parameter::FromFloatArray(const std::vector<float>& values) {
  Parameter parameter;
  parameter.type_ = Type::kFloatArray;
  parameter.float_values_ = values;
  std::vector<std::string> items;
  for (float value : values) {
    items.push_back(FloatText(value));
    parameter.int_values_.push_back(static_cast<int>(value));
  }
  parameter.string_values_ = items;
  parameter.text_ = JoinList(items);
  return parameter;
}

bool Parameter::IsNone() const {
  return type_ == Type::kNone || (type_ == Type::kIntArray && int_values_.empty());
}

bool Parameter::AsBool() const {
  if (type_ == Type::kBool) return bool_value_;
  if (type_ == Type::kInt && (int_value_ == 0 || int_value_ == 1)) return int_value_ == 1;
  throw Error(Concat("expected a bool, got ", TypeName(type_), " '", text_, "'"));
}

int Parameter::AsInt() const {
  if (type_ == Type::kInt) return int_value_;
  throw Error(Concat("expected an int, got ", TypeName(type_), " '", text_, "'"));
}

float Parameter::AsFloat() const {
  if (type_ == Type::kInt || type_ == Type::kFloat) return float_value_;
  throw Error(Concat("expected a float, got ", TypeName(type_), " '", text_, "'"));
}

const std::string& Parameter::AsString() const {
  if (type_ == Type::kString) return string_values_.front();
  throw Error(Concat("expected a string, got ", TypeName(type_), " '", text_, "'"));
}

std::vector<int> Parameter::AsIntArray() const {
  if (type_ == Type::kIntArray) return int_values_;
  throw Error(Concat("expected an int list, got ", TypeName(type_), " '", text_, "'"));
}

std::vector<float> Parameter::AsFloatArray() const {
  if (type_ == Type::kIntArray || type_ == Type::kFloatArray) return float_values_;
  throw Error(Concat("expected a float list, got ", TypeName(type_), " '", text_, "'"));
}

const std::vector<std::string>& Parameter::AsStringArray() const {
  if (type_ == Type::kStringArray || (type_ == Type::kIntArray && int_values_.empty())) {
    return string_values_;
  }
  throw Error(Concat("expected a string list, got ", TypeName(type_), " '", text_, "'"));
}

const char* Parameter::TypeName(Type type) {
  // In the order of the enumerators of Type.
  static const char* const kNames[] = {"None",   "bool",     "int",        "float",
                                       "string", "int list", "float list", "string list"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(Type::kStringArray) + 1,
                "one name per Parameter::Type");
  return kNames[static_cast<size_t>(type)];
}

}  // namespace lumen
