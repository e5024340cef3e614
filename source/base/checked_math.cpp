#include "base/checked_math.hpp"

#include <limits>

#include "lumen/error.hpp"

namespace lumen {

size_t CheckedMultiply(size_t a, size_t b, const char* what) {
  size_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) {
    throw Error(Concat(what, ": ", a, " * ", b, " overflows"));
  }
  return product;
}

size_t CheckedAdd(size_t a, size_t b, const char* what) {
  size_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) {
    throw Error(Concat(what, ": ", a, " + ", b, " overflows"));
  }
  return sum;
}

int64_t CheckedMultiplyAdd(int64_t a, int64_t b, int64_t c, const char* what) {
  int64_t product = 0;
  int64_t sum = 0;
  if (__builtin_mul_overflow(a, b, &product) || __builtin_add_overflow(product, c, &sum)) {
    throw Error(Concat(what, ": ", a, " * ", b, " + ", c, " overflows"));
  }
  return sum;
}

int CheckedInt(int64_t value, const char* what) {
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
    throw Error(Concat(what, ": ", value, " does not fit in an int"));
  }
  return static_cast<int>(value);
}

}  // namespace lumen
