// Checked size arithmetic: every product or sum of extents, element counts and byte counts that
// comes from a model file goes through here.
//
// A hostile file can declare an operand of shape (1,4194304,2097152,2097152): its element count
// wraps around to 0 in size_t, the memory planner gives it no memory, and the first kernel that
// touches it writes through a null pointer. These helpers turn every such wrap-around into a
// lumen::Error that says what was being computed.
#ifndef LUMEN_BASE_CHECKED_MATH_HPP_
#define LUMEN_BASE_CHECKED_MATH_HPP_

#include <cstddef>
#include <cstdint>
#include <string>

namespace lumen {

// a * b, or lumen::Error("<what>: <a> * <b> overflows") when the product does not fit in size_t.
size_t CheckedMultiply(size_t a, size_t b, const char* what);

// a + b, or lumen::Error naming `what` when the sum does not fit in size_t.
size_t CheckedAdd(size_t a, size_t b, const char* what);

// a * b + c for int64 window arithmetic, or lumen::Error naming `what` on overflow.
int64_t CheckedMultiplyAdd(int64_t a, int64_t b, int64_t c, const char* what);

// Converts to int, or lumen::Error naming `what` when the value does not fit.
int CheckedInt(int64_t value, const char* what);

}  // namespace lumen

#endif  // LUMEN_BASE_CHECKED_MATH_HPP_
