// Helpers for the tests that compare a fast kernel with its reference: random data from a fixed
// seed and an elementwise comparison that says where and by how much two results differ.
#ifndef LUMEN_TEST_SUPPORT_KERNEL_TESTING_HPP_
#define LUMEN_TEST_SUPPORT_KERNEL_TESTING_HPP_

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "io/golden_case.hpp"
#include "support/float_text.hpp"

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

// How `first` and `second` differ, for a failure message: "3 of 100 values outside atol 1e-05
// rtol 0.0001; max abs error 0.5, first at index 7 (im2col 0.25, your reference 0.75)".
inline std::string Differences(const std::vector<float>& first, const std::string& first_name,
                               const std::vector<float>& second, const std::string& second_name,
                               float absolute_tolerance, float relative_tolerance,
                               const Comparison& comparison) {
  const size_t index = comparison.first_mismatch;
  return std::to_string(comparison.mismatch_count) + " of " +
         std::to_string(comparison.element_count) + " values outside atol " +
         FloatText(absolute_tolerance) + " rtol " + FloatText(relative_tolerance) +
         "; max abs error " + FloatText(static_cast<float>(comparison.max_absolute_error)) +
         ", first at index " + std::to_string(index) + " (" + first_name + " " +
         FloatText(first[index]) + ", " + second_name + " " + FloatText(second[index]) + ")";
}

// EXPECTs `first` to agree with `second` within atol + rtol * |second| everywhere (NaN matches
// only NaN). The failure names both ("im2col and your reference disagree: ..."), since a
// difference does not say which of the two is wrong, then gives Differences. `where` (the
// geometry, the case), when not empty, starts the message.
inline void ExpectAgree(const std::vector<float>& first, const std::string& first_name,
                        const std::vector<float>& second, const std::string& second_name,
                        float absolute_tolerance, float relative_tolerance,
                        const std::string& where = "") {
  const std::string what =
      (where.empty() ? "" : where + ": ") + first_name + " and " + second_name + " disagree";
  ASSERT_EQ(first.size(), second.size()) << what << " on the number of values";
  const Comparison comparison =
      CompareWithTolerance(first, second, absolute_tolerance, relative_tolerance);
  if (comparison.passed()) return;
  ADD_FAILURE() << what << ": "
                << Differences(first, first_name, second, second_name, absolute_tolerance,
                               relative_tolerance, comparison);
}

// EXPECTs |got - reference| <= atol + rtol * |reference| everywhere (NaN matches only NaN), and
// reports Differences. `what` names the result.
inline void ExpectClose(const std::vector<float>& got, const std::vector<float>& reference,
                        float absolute_tolerance, float relative_tolerance,
                        const std::string& what) {
  ASSERT_EQ(got.size(), reference.size()) << what;
  const Comparison comparison =
      CompareWithTolerance(got, reference, absolute_tolerance, relative_tolerance);
  if (comparison.passed()) return;
  ADD_FAILURE() << what << ": "
                << Differences(got, "got", reference, "reference", absolute_tolerance,
                               relative_tolerance, comparison);
}

}  // namespace test_support
}  // namespace lumen

#endif  // LUMEN_TEST_SUPPORT_KERNEL_TESTING_HPP_
