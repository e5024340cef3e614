#include "quantize/activation_range.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "math/int8_gemm.hpp"

namespace lumen {

void ActivationRange::AddToExtremes(const float* values, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const float value = values[i];
    if (!std::isfinite(value)) continue;
    if (empty()) {
      min_ = max_ = value;
    } else {
      min_ = std::min(min_, value);
      max_ = std::max(max_, value);
    }
  }
}

void ActivationRange::AddToHistogram(const float* values, size_t count) {
  if (histogram_.empty()) histogram_.assign(kBins, 0);
  if (empty()) return;
  const double width = static_cast<double>(max_) - min_;
  const double bins_per_unit = width > 0 ? kBins / width : 0.0;
  for (size_t i = 0; i < count; ++i) {
    const float value = values[i];
    if (!std::isfinite(value)) continue;
    // Values outside the extremes of pass 1 (a later run differing) land in the end bins.
    const double position = (static_cast<double>(value) - min_) * bins_per_unit;
    const int bin = static_cast<int>(std::clamp(position, 0.0, kBins - 1.0));
    ++histogram_[bin];
  }
}

void ActivationRange::PercentileRange(double percentile, float* low, float* high) const {
  *low = min_;
  *high = max_;
  if (empty() || histogram_.empty() || percentile >= 100.0) return;
  // LESSON 17 BEGIN: cut each tail of the histogram, whole bins, while it holds at most its share
  uint64_t total = 0;
  for (uint64_t count : histogram_) total += count;
  // The count each tail may lose; a bin is cut only when all of it fits in the tail.
  const double tail = total * (100.0 - percentile) / 100.0;
  const double bin_width = (static_cast<double>(max_) - min_) / kBins;
  int first = 0;
  for (double cut = 0; first < kBins - 1 && cut + histogram_[first] <= tail; ++first) {
    cut += histogram_[first];
  }
  int last = kBins - 1;
  for (double cut = 0; last > first && cut + histogram_[last] <= tail; --last) {
    cut += histogram_[last];
  }
  *low = static_cast<float>(min_ + first * bin_width);
  *high = static_cast<float>(min_ + (last + 1) * bin_width);
  *high = std::min(*high, max_);
  // LESSON 17 END
}

void ActivationRange::MseRange(float* low, float* high) const {
  *low = min_;
  *high = max_;
  if (empty() || histogram_.empty() || !(max_ > min_)) return;
  // Prefix sums over the bins (each bin's values taken at its centre) of the count, the values
  // and their squares: the clipping error of everything below (or above) a cut is then
  //   sum over those values of (x - cut)^2 = sum x^2 - 2 cut sum x + cut^2 count,
  // found in constant time per candidate range.
  const double bin_width = (static_cast<double>(max_) - min_) / kBins;
  std::vector<double> count(kBins + 1, 0.0), sum(kBins + 1, 0.0), squares(kBins + 1, 0.0);
  for (int bin = 0; bin < kBins; ++bin) {
    const double centre = min_ + (bin + 0.5) * bin_width;
    const double n = static_cast<double>(histogram_[bin]);
    count[bin + 1] = count[bin] + n;
    sum[bin + 1] = sum[bin] + n * centre;
    squares[bin + 1] = squares[bin] + n * centre * centre;
  }
  // Bins [first, end) hold the values x with cut_low <= x < cut_high (to the bin).
  const auto bin_of = [&](double value) {
    return static_cast<int>(
        std::clamp(std::floor((value - min_) / bin_width), 0.0, static_cast<double>(kBins)));
  };
  const auto error_of = [&](float candidate_low, float candidate_high) {
    // A range's cost: rounding inside (scale^2 / 12 each, an even spread over one step), clipping
    // outside.
    const Uint8Quantization q = ChooseUint8Quantization(candidate_low, candidate_high);
    const double scale = q.scale;
    const double lowest = scale * (0 - q.zero_point);  // what the range can represent
    const double highest = scale * (255 - q.zero_point);
    const int first = bin_of(lowest);
    const int end = std::max(first, bin_of(highest));
    const double below = squares[first] - 2 * lowest * sum[first] + lowest * lowest * count[first];
    const double above_count = count[kBins] - count[end];
    const double above = (squares[kBins] - squares[end]) - 2 * highest * (sum[kBins] - sum[end]) +
                         highest * highest * above_count;
    return below + above + (count[end] - count[first]) * scale * scale / 12.0;
  };
  double best = error_of(min_, max_);
  for (int low_step = 1; low_step <= kMseSteps; ++low_step) {
    const float candidate_low = min_ * low_step / kMseSteps;
    for (int high_step = 1; high_step <= kMseSteps; ++high_step) {
      const float candidate_high = max_ * high_step / kMseSteps;
      if (candidate_high < candidate_low) continue;
      const double error = error_of(candidate_low, candidate_high);
      if (error < best) {
        best = error;
        *low = candidate_low;
        *high = candidate_high;
      }
    }
  }
}

}  // namespace lumen
