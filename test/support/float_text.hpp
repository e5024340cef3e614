// FloatText: a float as the shortest text that reads back as the same float, for test messages.
// A tolerance written 1e-5 then prints as "1e-05", as it was written, where a stream at gtest's
// precision prints 9.9999997473787516e-06, the float's exact binary value.
#ifndef LUMEN_TEST_SUPPORT_FLOAT_TEXT_HPP_
#define LUMEN_TEST_SUPPORT_FLOAT_TEXT_HPP_

#include <cstdio>
#include <cstdlib>
#include <string>

namespace lumen {
namespace test_support {

// `value` in printf's %g form with the fewest digits that std::strtof reads back exactly:
// "1e-05", "0.0001", "0.1", "0.90000004" (as Python writes the case files' tolerances).
inline std::string FloatText(float value) {
  char text[32];
  for (int digits = 1; digits <= 9; ++digits) {  // 9 digits always read back (FLT_DECIMAL_DIG)
    std::snprintf(text, sizeof(text), "%.*g", digits, value);
    if (std::strtof(text, nullptr) == value) break;  // NaN never equals: it ends as "nan"
  }
  return text;
}

}  // namespace test_support
}  // namespace lumen

#endif  // LUMEN_TEST_SUPPORT_FLOAT_TEXT_HPP_
