// Parameter: one typed hyper-parameter of an operator (`stride=(2,2)`, `bias=True`, ...).
#ifndef LUMEN_GRAPH_PARAMETER_HPP_
#define LUMEN_GRAPH_PARAMETER_HPP_

#include <string>
#include <vector>

namespace lumen {

// A parameter value as written in a .pnnx.param file, classified into a type when parsed.
//
// Accessors convert where PyTorch would (an int is a valid float, 0/1 are valid bools, `()` is an
// empty list) and throw lumen::Error otherwise; Node adds the operator and key to the
// message.
class Parameter {
 public:
  // The kinds of values pnnx writes.
  enum class Type { kNone, kBool, kInt, kFloat, kString, kIntArray, kFloatArray, kStringArray };

  // A None parameter.
  Parameter() = default;

  // Classifies the text of a value: None, True/False, a 32-bit int, a float (both pnnx spellings
  // and inf/nan), a parenthesised list, or else a string. Throws on an int that overflows 32 bits.
  static Parameter Parse(const std::string& text);

  // Builders for tests and for code that makes operators by hand.
  static Parameter FromBool(bool value);
  static Parameter FromInt(int value);
  static Parameter FromFloat(float value);
  static Parameter FromString(const std::string& value);
  static Parameter FromIntArray(const std::vector<int>& values);
  static Parameter FromFloatArray(const std::vector<float>& values);

  // The classified type.
  Type type() const { return type_; }
  // The value's text as written in the file (or as a builder would write it).
  const std::string& text() const { return text_; }
  // True for None and for the empty list `()`, which pnnx writes interchangeably.
  bool IsNone() const;

  // The value as a bool (True/False, or the ints 0/1).
  bool AsBool() const;
  // The value as an int.
  int AsInt() const;
  // The value as a float (ints are promoted).
  float AsFloat() const;
  // The value as a string (any scalar text that is not a number, bool or None).
  const std::string& AsString() const;
  // The value as a list of ints (`()` is the empty list).
  std::vector<int> AsIntArray() const;
  // The value as a list of floats (int lists are promoted).
  std::vector<float> AsFloatArray() const;
  // The value as a list of strings.
  const std::vector<std::string>& AsStringArray() const;

  // Name of a type, for messages ("int", "float list", ...).
  static const char* TypeName(Type type);

 private:
  Type type_ = Type::kNone;
  std::string text_ = "None";
  bool bool_value_ = false;
  int int_value_ = 0;
  float float_value_ = 0.0f;
  std::vector<int> int_values_;
  std::vector<float> float_values_;
  std::vector<std::string> string_values_;  // string scalar (one entry) or string list
};

}  // namespace lumen

#endif  // LUMEN_GRAPH_PARAMETER_HPP_
