// Errors that reach the user: a malformed file, a bad shape, an unsupported op.
//
// The library reports every problem caused by user input by throwing lumen::Error with a message
// that says where (file and line, or operator type and name) and what (expected vs got). CHECK and
// LOG(FATAL) from glog are kept for broken internal invariants, i.e. bugs in Lumen itself.
#ifndef LUMEN_ERROR_HPP_
#define LUMEN_ERROR_HPP_

#include <sstream>
#include <stdexcept>
#include <string>

namespace lumen {

// The one exception type the library throws for bad input.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Concatenates any streamable values into one string, to build error messages in one line.
template <typename... Parts>
std::string Concat(const Parts&... parts) {
  std::ostringstream stream;
  (stream << ... << parts);
  return stream.str();
}

}  // namespace lumen

#endif  // LUMEN_ERROR_HPP_
