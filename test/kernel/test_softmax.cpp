// The softmax kernels against their reference (the definition, in double): nn.Softmax's on
// splits around every kind of dim (the last, a middle one, more than one group of lanes, a
// single element) on 1 and 2 threads, and attention's row softmax with masked (-inf) scores and a
// fully masked row.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "base/thread_pool.hpp"
#include "kernel/softmax.hpp"
#include "support/kernel_testing.hpp"

namespace lumen {
namespace {

using test_support::ExpectAgree;
using test_support::RandomValues;

constexpr float kInfinity = std::numeric_limits<float>::infinity();

// (outer, extent, inner): dim last (inner 1), dim in the middle, inner past one group of 256
// lanes, a long extent, one element, and large enough to run in parallel.
const std::vector<AxisSplit> kSplits = {
    {1, 10, 1}, {3, 7, 5}, {2, 4, 300}, {1, 1000, 3}, {1, 1, 1}, {4, 64, 257}, {5, 3, 1},
};

std::string Name(const AxisSplit& split, int threads) {
  return std::to_string(split.outer) + "x" + std::to_string(split.extent) + "x" +
         std::to_string(split.inner) + " on " + std::to_string(threads) + " thread(s)";
}

TEST(SoftmaxKernel, SlicesMatchReferenceOnOneAndTwoThreads) {
  ThreadPool two_threads(2);
  std::mt19937 generator(12);
  for (const AxisSplit& split : kSplits) {
    // Logits of up to +-30: exponentials of very different sizes.
    const std::vector<float> input =
        RandomValues(split.outer * split.extent * split.inner, &generator, -30.0f, 30.0f);
    std::vector<float> reference(input.size());
    SoftmaxSlicesReference(split, input.data(), reference.data());
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &two_threads}) {
      std::vector<float> fast(input.size(), std::nanf(""));
      SoftmaxSlices(split, input.data(), fast.data(), pool);
      ExpectAgree(fast, "SoftmaxSlices", reference, "SoftmaxSlicesReference", 1e-7f, 1e-5f,
                  Name(split, pool == nullptr ? 1 : 2));
    }
  }
}

TEST(SoftmaxKernel, SlicesStayFiniteWhereExponentialsOverflow) {
  const AxisSplit split{1, 3, 1};
  const std::vector<float> input = {1000.0f, 999.0f, -1000.0f};
  std::vector<float> fast(3);
  SoftmaxSlices(split, input.data(), fast.data(), nullptr);
  EXPECT_NEAR(fast[0], 0.7310586f, 1e-6f);
  EXPECT_NEAR(fast[1], 0.2689414f, 1e-6f);
  EXPECT_EQ(fast[2], 0.0f);
}

// The log-softmax, out of place and in place (the layer may be given one buffer), against its
// reference on one and two threads.
TEST(SoftmaxKernel, LogSlicesMatchReferenceInAndOutOfPlace) {
  ThreadPool two_threads(2);
  std::mt19937 generator(13);
  for (const AxisSplit& split : kSplits) {
    const std::vector<float> input =
        RandomValues(split.outer * split.extent * split.inner, &generator, -30.0f, 30.0f);
    std::vector<float> reference(input.size());
    LogSoftmaxSlicesReference(split, input.data(), reference.data());
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &two_threads}) {
      std::vector<float> fast(input.size(), std::nanf(""));
      LogSoftmaxSlices(split, input.data(), fast.data(), pool);
      ExpectAgree(fast, "LogSoftmaxSlices", reference, "LogSoftmaxSlicesReference", 1e-5f, 1e-6f,
                  Name(split, pool == nullptr ? 1 : 2));
      std::vector<float> in_place = input;
      LogSoftmaxSlices(split, in_place.data(), in_place.data(), pool);
      ExpectAgree(in_place, "LogSoftmaxSlices in place", reference, "LogSoftmaxSlicesReference",
                  1e-5f, 1e-6f, Name(split, pool == nullptr ? 1 : 2));
    }
  }
}

// Where the softmax underflows to 0, its logarithm is still the finite x - max - log(sum).
TEST(SoftmaxKernel, LogSlicesStayFiniteWhereTheSoftmaxUnderflows) {
  const AxisSplit split{1, 3, 1};
  const std::vector<float> input = {1000.0f, 999.0f, -1000.0f};
  std::vector<float> fast(3);
  LogSoftmaxSlices(split, input.data(), fast.data(), nullptr);
  EXPECT_NEAR(fast[0], -0.3132617f, 1e-6f);
  EXPECT_NEAR(fast[1], -1.3132617f, 1e-6f);
  EXPECT_NEAR(fast[2], -2000.3132617f, 1e-3f);
}

// SoftmaxRows normalises the rows of a column-major rows x columns block: the reference's split
// with the rows as lanes (outer 1, extent = columns, inner = rows).
TEST(SoftmaxKernel, RowsMatchReferenceWithMaskedScores) {
  std::mt19937 generator(5);
  for (const auto& [rows, columns] :
       std::vector<std::pair<int, int>>{{1, 1}, {3, 17}, {128, 40}, {300, 9}, {7, 1}}) {
    std::vector<float> scores =
        RandomValues(static_cast<size_t>(rows) * columns, &generator, -10.0f, 10.0f);
    // Mask every third score of every other row, but never a whole row here.
    for (int s = 1; s < columns; s += 3) {
      for (int i = 0; i < rows; i += 2) scores[static_cast<size_t>(s) * rows + i] = -kInfinity;
    }
    std::vector<float> reference(scores.size());
    SoftmaxSlicesReference(AxisSplit{1, static_cast<size_t>(columns), static_cast<size_t>(rows)},
                           scores.data(), reference.data());
    SoftmaxRows(scores.data(), rows, columns);
    // FastExp is accurate to a few ulps; a masked score weighs exactly 0 in both.
    ExpectAgree(scores, "SoftmaxRows", reference, "SoftmaxSlicesReference", 1e-7f, 1e-5f,
                std::to_string(rows) + "x" + std::to_string(columns));
  }
}

TEST(SoftmaxKernel, RowOfOnlyMaskedScoresIsNan) {
  // Two rows, three columns; row 1 fully masked, as PyTorch gives NaN for it.
  std::vector<float> scores = {0.5f, -kInfinity, 1.0f, -kInfinity, -kInfinity, -kInfinity};
  SoftmaxRows(scores.data(), 2, 3);
  for (int s = 0; s < 3; ++s) EXPECT_TRUE(std::isnan(scores[s * 2 + 1])) << "column " << s;
  EXPECT_NEAR(scores[0] + scores[2] + scores[4], 1.0f, 1e-6f);
  EXPECT_EQ(scores[4], 0.0f);
}

}  // namespace
}  // namespace lumen
