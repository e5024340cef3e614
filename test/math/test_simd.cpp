// The vector helpers of math/simd.hpp that are not covered through a kernel's tests.
#include <gtest/gtest.h>

#include "math/simd.hpp"

namespace lumen {
namespace {

// Every element moves to its mirror place, and nothing else changes: distinct values, so that a
// lane taken from the wrong row or column shows.
TEST(TransposeEight, MovesEachElementToItsMirrorPlace) {
  using Vector = FloatVector<8>;
  Vector rows[8];
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) rows[i][j] = static_cast<float>(10 * i + j);
  }
  TransposeEight(rows);
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      EXPECT_EQ(rows[i][j], static_cast<float>(10 * j + i)) << "row " << i << " column " << j;
    }
  }
  TransposeEight(rows);  // and back
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) EXPECT_EQ(rows[i][j], static_cast<float>(10 * i + j));
  }
}

}  // namespace
}  // namespace lumen
