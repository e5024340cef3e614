// The cumulative scan kernel against its reference (the definition, one slice at a time): sums and
// products along splits around every kind of dim (the last, a middle one, more than one group of
// lanes, a long extent, a single element) on 1 and 2 threads.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "base/thread_pool.hpp"
#include "kernel/scan.hpp"
#include "support/kernel_testing.hpp"

namespace lumen {
namespace {

using test_support::ExpectAgree;
using test_support::RandomValues;

// (outer, extent, inner): dim last (inner 1), dim in the middle, inner past one group of lanes, a
// long extent, one element, and large enough to run in parallel.
const std::vector<AxisSplit> kSplits = {
    {1, 10, 1}, {3, 7, 5}, {2, 4, 300}, {1, 1000, 3}, {1, 1, 1}, {4, 64, 257}, {5, 3, 1},
};

TEST(ScanKernel, MatchesReferenceOnOneAndTwoThreads) {
  ThreadPool two_threads(2);
  std::mt19937 generator(25);
  for (ScanKind kind : {ScanKind::kSum, ScanKind::kProduct}) {
    for (const AxisSplit& split : kSplits) {
      // Products of values near 1 neither vanish nor overflow over a long extent.
      const std::vector<float> input =
          kind == ScanKind::kSum
              ? RandomValues(split.outer * split.extent * split.inner, &generator)
              : RandomValues(split.outer * split.extent * split.inner, &generator, 0.9f, 1.1f);
      std::vector<float> reference(input.size());
      CumulativeScanReference(kind, split, input.data(), reference.data());
      for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &two_threads}) {
        std::vector<float> fast(input.size(), std::nanf(""));
        CumulativeScan(kind, split, input.data(), fast.data(), pool);
        const std::string name = std::to_string(split.outer) + "x" + std::to_string(split.extent) +
                                 "x" + std::to_string(split.inner) +
                                 (kind == ScanKind::kSum ? " sum" : " product");
        ExpectAgree(fast, "CumulativeScan", reference, "CumulativeScanReference", 0.0f, 0.0f, name);
      }
    }
  }
}

// The running value is kept in double: adding 1 to 2^24 in float would be lost, not in double.
TEST(ScanKernel, KeepsTheRunningSumInDouble) {
  const std::vector<float> input = {16777216.0f, 1.0f, 1.0f};
  std::vector<float> output(3);
  CumulativeScan(ScanKind::kSum, AxisSplit{1, 3, 1}, input.data(), output.data(), nullptr);
  EXPECT_EQ(output[2], 16777218.0f);
}

}  // namespace
}  // namespace lumen
