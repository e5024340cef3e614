// ActivationRange: the extremes and percentile ranges calibration reads from the values it sees.
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

}  // namespace
}  // namespace lumen
