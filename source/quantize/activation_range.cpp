#include "quantize/activation_range.hpp"

#include <algorithm>
#include <cmath>

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

}  // namespace lumen
