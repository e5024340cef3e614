// ActivationRange: what calibration learns of one operand (the input of a layer to quantise)
// over every calibration run, and the range its uint8 quantisation then covers.
#ifndef LUMEN_QUANTIZE_ACTIVATION_RANGE_HPP_
#define LUMEN_QUANTIZE_ACTIVATION_RANGE_HPP_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace lumen {

// The values an operand took, in two passes over the calibration inputs: first their extremes
// (enough for min/max calibration), then, within those extremes, a histogram from which a
// percentile range is read. Non-finite values are left out of both: they say nothing of the
// range the finite ones need.
class ActivationRange {
 public:
  // Bins of the histogram: fine enough that a percentile cut lands within 1/2048 of the range.
  static constexpr int kBins = 2048;

  // Pass 1: widens the extremes to cover `count` values.
  void AddToExtremes(const float* values, size_t count);
  // Pass 2, after every AddToExtremes: counts `count` values into the histogram.
  void AddToHistogram(const float* values, size_t count);

  // Whether any finite value was seen.
  bool empty() const { return min_ > max_; }
  // The extremes seen (min > max while empty()).
  float min() const { return min_; }
  float max() const { return max_; }
  // The range that holds `percentile`% (in (50, 100]) of the histogram's values on each side: its
  // lowest and highest (100 - percentile)% cut away, to the bin. The extremes when 100.
  void PercentileRange(double percentile, float* low, float* high) const;
  // The range whose uint8 quantisation adds the least squared error to the histogram's values:
  // rounding inside it (scale^2 / 12 per value), clipping outside it. Searched over ranges that
  // shrink either end of the extremes towards zero, in steps of 1/kMseSteps. The extremes when
  // nothing better is found.
  void MseRange(float* low, float* high) const;

  // Steps of the MseRange search per end.
  static constexpr int kMseSteps = 200;

 private:
  float min_ = 1.0f;  // empty: min > max
  float max_ = 0.0f;
  std::vector<uint64_t> histogram_;  // kBins counts over [min_, max_], once pass 2 starts
};

}  // namespace lumen

#endif  // LUMEN_QUANTIZE_ACTIVATION_RANGE_HPP_
