// The message a test expects from lumen::Error, read in one expression.
#ifndef LUMEN_TEST_SUPPORT_ERROR_OF_HPP_
#define LUMEN_TEST_SUPPORT_ERROR_OF_HPP_

#include <string>

#include "lumen/error.hpp"

namespace lumen {
namespace test_support {

// The message of the lumen::Error that `action` throws, or "" if it throws none.
template <typename Action>
std::string ErrorOf(Action action) {
  try {
    action();
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

}  // namespace test_support
}  // namespace lumen

#endif  // LUMEN_TEST_SUPPORT_ERROR_OF_HPP_
