// Helpers for the tests that compare a fast kernel with its reference: random data from a fixed
// seed and an elementwise comparison that
// says where and by how much two results differ.
#ifndef LUMEN_TEST_SUPPORT_KERNEL_TESTING_HPP_
#define LUMEN_TEST_SUPPORT_KERNEL_TESTING_HPP_

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "lumen/io/golden_case.hpp"

namespace lumen {
namespace test_support {

// `count` floats drawn uniformly from [low, high). Tests pass a generator seeded with a constant,
// so that a failure shows the same numbers on every run and every machine.
inline std::vector<float> RandomValues(size_t count, std::mt19937* generator, float low = -1.0f,
                                       float high = 1.0f) {
  std::uniform_real_distribution<float> distribution(low, high);
  std::vector<float> values(count);
  for (float& value : values) value = distribution(*generator);
  return values;
}

// EXPECTs |got - reference| <= atol + rtol * |reference| everywhere (NaN matches only NaN), and
// reports the largest error and the first element outside the tolerance. `what` names the result.
inline void ExpectClose(const std::vector<float>& got, const std::vector<float>& reference,
                        float absolute_tolerance, float relative_tolerance,
                        const std::string& what) {
  ASSERT_EQ(got.size(), reference.size()) << what;
  const Comparison comparison =
      CompareWithTolerance(got, reference, absolute_tolerance, relative_tolerance);
  EXPECT_TRUE(comparison.passed())
      << what << ": " << comparison.mismatch_count << " of " << comparison.element_count
      << " values outside atol " << absolute_tolerance << " rtol " << relative_tolerance
      << "; max abs error " << comparison.max_absolute_error << ", first at index "
      << comparison.first_mismatch << " (got " << got[comparison.first_mismatch] << ", reference "
      << reference[comparison.first_mismatch] << ")";
}

}  // namespace test_support
}  // namespace lumen

#endif  // LUMEN_TEST_SUPPORT_KERNEL_TESTING_HPP_
