#include "base/parse_number.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace lumen {

bool ParseInteger(const std::string& text, int64_t* value) {
  // LESSON 01 BEGIN: an optional sign and decimal digits, nothing else, no overflow
  if (text.empty()) return false;
  size_t first_digit = (text[0] == '-' || text[0] == '+') ? 1 : 0;
  if (first_digit == text.size()) return false;
  for (size_t i = first_digit; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
  }
  errno = 0;
  const long long parsed = std::strtoll(text.c_str(), nullptr, 10);
  if (errno == ERANGE) return false;
  *value = parsed;
  return true;
  // LESSON 01 END
}

bool ParseFloat(const std::string& text, float* value) {
  // LESSON 01 BEGIN: decimal and exponent spellings, inf and nan; nothing else, no overflow
  if (text == "inf" || text == "+inf") {
    *value = std::numeric_limits<float>::infinity();
    return true;
  }
  if (text == "-inf") {
    *value = -std::numeric_limits<float>::infinity();
    return true;
  }
  if (text == "nan" || text == "-nan") {
    *value = std::numeric_limits<float>::quiet_NaN();
    return true;
  }
  // Only decimal and exponent spellings: strtof alone would also take hex floats and blanks.
  bool has_digit = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      has_digit = true;
    } else if (c != '.' && c != 'e' && c != 'E' && c != '-' && c != '+') {
      return false;
    }
  }
  if (!has_digit) return false;
  char* end = nullptr;
  errno = 0;
  const float parsed = std::strtof(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return false;
  // A magnitude too large for float is an error; an underflow to zero or a denormal is fine.
  if (errno == ERANGE && std::isinf(parsed)) return false;
  *value = parsed;
  return true;
  // LESSON 01 END
}

}  // namespace lumen
