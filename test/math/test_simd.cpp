// The vector helpers of math/simd.hpp that are not covered through a kernel's tests.
#include <gtest/gtest.h>

#include <memory>

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

// Each count from 0 to 8: the first `count` lanes hold the run, the others zero, and nothing past
// the run is read (each run is its own allocation, which the sanitiser build checks).
TEST(LoadFirstLanes, ReadsOnlyTheRunAndZeroesTheRest) {
  for (int count = 0; count <= 8; ++count) {
    auto run = std::make_unique<float[]>(static_cast<size_t>(count) + (count == 0 ? 1 : 0));
    for (int i = 0; i < count; ++i) run[i] = static_cast<float>(i + 1);
    const FloatVector<8> values = LoadFirstLanes(run.get(), count);
    for (int lane = 0; lane < 8; ++lane) {
      EXPECT_EQ(values[lane], lane < count ? static_cast<float>(lane + 1) : 0.0f)
          << "count " << count << " lane " << lane;
    }
  }
}

}  // namespace
}  // namespace lumen
