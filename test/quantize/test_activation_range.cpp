// ActivationRange: the extremes, percentile and least-error ranges calibration reads from the
// values it sees.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "quantize/activation_range.hpp"

namespace lumen {
namespace {

TEST(ActivationRange, ExtremesLeaveNonFiniteValuesOut) {
  ActivationRange range;
  EXPECT_TRUE(range.empty());
  const float infinity = std::numeric_limits<float>::infinity();
  const std::vector<float> values = {NAN, 2.0f, -infinity, -3.5f, infinity, 0.25f};
  range.AddToExtremes(values.data(), values.size());
  EXPECT_FALSE(range.empty());
  EXPECT_EQ(range.min(), -3.5f);
  EXPECT_EQ(range.max(), 2.0f);
  const std::vector<float> more = {7.0f};
  range.AddToExtremes(more.data(), more.size());
  EXPECT_EQ(range.max(), 7.0f);
}

TEST(ActivationRange, OnlyNonFiniteValuesLeaveItEmpty) {
  ActivationRange range;
  const std::vector<float> values = {NAN, std::numeric_limits<float>::infinity()};
  range.AddToExtremes(values.data(), values.size());
  range.AddToHistogram(values.data(), values.size());
  EXPECT_TRUE(range.empty());
}

// 0, 1, ..., 9999 and two far outliers: 99.9% on each side cuts the outliers and about ten values
// at each end, to within a bin (1/2048 of the range).
TEST(ActivationRange, PercentileCutsBothTails) {
  std::vector<float> values;
  for (int i = 0; i < 10000; ++i) values.push_back(static_cast<float>(i));
  values.push_back(-100000.0f);
  values.push_back(100000.0f);
  ActivationRange range;
  range.AddToExtremes(values.data(), values.size());
  range.AddToHistogram(values.data(), values.size());
  EXPECT_EQ(range.min(), -100000.0f);
  EXPECT_EQ(range.max(), 100000.0f);
  float low = 0.0f;
  float high = 0.0f;
  range.PercentileRange(99.9, &low, &high);
  const float bin = 200000.0f / ActivationRange::kBins;
  EXPECT_GE(low, -bin);
  EXPECT_LE(low, 10.0f);
  EXPECT_GE(high, 9990.0f);
  EXPECT_LE(high, 10000.0f + bin);
  range.PercentileRange(100.0, &low, &high);  // nothing cut
  EXPECT_EQ(low, -100000.0f);
  EXPECT_EQ(high, 100000.0f);
}

// A tail smaller than one bin cuts nothing: the range stays the extremes.
TEST(ActivationRange, PercentileNeverCutsAWholeBinItMayNotLose) {
  const std::vector<float> values = {0.0f, 1.0f, 2.0f, 3.0f};
  ActivationRange range;
  range.AddToExtremes(values.data(), values.size());
  range.AddToHistogram(values.data(), values.size());
  float low = 0.0f;
  float high = 0.0f;
  range.PercentileRange(99.0, &low, &high);  // 1% of 4 values: less than one value
  EXPECT_EQ(low, 0.0f);
  EXPECT_EQ(high, 3.0f);
}

// A million values spread evenly over [0, 1) and one at 100. With the range [0, h], rounding
// adds (h / 255)^2 / 12 per value inside it and clipping (100 - h)^2 for the outlier: a total of
// 1.28 h^2 + (100 - h)^2, least at h = 100 / 2.28 = 43.9. Minmax would keep 100 (rounding alone
// then costs 12800, against 5625 at the optimum); cutting at 1 would cost 9801 for the outlier.
TEST(ActivationRange, MseWeighsRoundingAgainstClipping) {
  std::vector<float> values;
  for (int i = 0; i < 1000; ++i) values.push_back(static_cast<float>(i) / 1000.0f);
  for (const float sign : {1.0f, -1.0f}) {  // and mirrored: the same cut below zero
    std::vector<float> signed_values;
    for (float value : values) signed_values.push_back(sign * value);
    const std::vector<float> outlier = {sign * 100.0f};
    ActivationRange range;
    range.AddToExtremes(signed_values.data(), signed_values.size());
    range.AddToExtremes(outlier.data(), outlier.size());
    for (int copy = 0; copy < 1000; ++copy) {
      range.AddToHistogram(signed_values.data(), signed_values.size());
    }
    range.AddToHistogram(outlier.data(), outlier.size());
    float low = 0.0f;
    float high = 0.0f;
    range.MseRange(&low, &high);
    const float cut = sign > 0 ? high : -low;
    const float other_end = sign > 0 ? low : high;
    EXPECT_GT(cut, 41.0f) << "sign " << sign;
    EXPECT_LT(cut, 47.0f) << "sign " << sign;
    EXPECT_NEAR(other_end, 0.0f, 1e-3f) << "sign " << sign;
  }
}

// The least-error range of `values`, seen in both calibration passes.
void MseRangeOf(const std::vector<float>& values, float* low, float* high) {
  ActivationRange range;
  range.AddToExtremes(values.data(), values.size());
  range.AddToHistogram(values.data(), values.size());
  range.MseRange(low, high);
}

// Evenly spread values and nothing else: any cut clips more than it saves in rounding (to within
// a step of the search), so the range stays the extremes.
TEST(ActivationRange, MseKeepsAnEvenSpreadWhole) {
  std::vector<float> values;
  for (int i = -1000; i <= 1000; ++i) values.push_back(static_cast<float>(i) / 1000.0f);
  float low = 0.0f;
  float high = 0.0f;
  MseRangeOf(values, &low, &high);
  EXPECT_LE(low, -0.99f);
  EXPECT_GE(high, 0.99f);
}

// One value: nothing to search (min == max); the extremes come back.
TEST(ActivationRange, MseOfOneValueIsThatValue) {
  float low = 0.0f;
  float high = 0.0f;
  MseRangeOf({2.5f}, &low, &high);
  EXPECT_EQ(low, 2.5f);
  EXPECT_EQ(high, 2.5f);
}

}  // namespace
}  // namespace lumen
