// Strict number parsing for file formats: the whole token must be the number.
//
// std::stoi("1x1") returns 1 and std::stof("2.0abc") returns 2; a reader that accepts that turns
// typos into silently wrong models. These helpers accept a token only when every character is used.
#ifndef LUMEN_BASE_PARSE_NUMBER_HPP_
#define LUMEN_BASE_PARSE_NUMBER_HPP_

#include <cstdint>
#include <string>

namespace lumen {

// Parses `text` as a whole decimal integer (optional sign); false on garbage or int64 overflow.
bool ParseInteger(const std::string& text, int64_t* value);

// Parses `text` as a whole float: decimal or exponent form (`2.0`, `1.000000e-05`, `1e-5`) or
// `inf`, `-inf`, `nan`; false on anything else.
bool ParseFloat(const std::string& text, float* value);

}  // namespace lumen

#endif  // LUMEN_BASE_PARSE_NUMBER_HPP_
