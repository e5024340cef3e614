#include "math/padding.hpp"

#include <algorithm>

namespace lumen {

const char* PaddingModeName(PaddingMode mode) {
  // In the order of the enumerators of PaddingMode.
  static const char* const kNames[] = {"constant", "reflect", "replicate", "circular"};
  static_assert(
      sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(PaddingMode::kCircular) + 1,
      "one name per PaddingMode");
  return kNames[static_cast<size_t>(mode)];
}

const char* PaddingProblem(PaddingMode mode, const AxisPadding& padding) {
  const int64_t padded = padding.PaddedExtent();
  if (padded < 0) return "the crops remove more elements than the axis holds";
  switch (mode) {
    case PaddingMode::kConstant:
      return nullptr;
    case PaddingMode::kReflect:
      if (padded == 0 || padding.extent == 0) return "the padded extent would be 0";
      if (padding.before >= padding.extent || padding.after >= padding.extent) {
        return "a reflect pad must be smaller than the input's extent";
      }
      return nullptr;
    case PaddingMode::kReplicate:
      if (padded == 0 || padding.extent == 0) return "the padded extent would be 0";
      return nullptr;
    case PaddingMode::kCircular: {
      // Wrapping takes from what is left of the axis after cropping.
      const int64_t kept = padding.extent - std::max<int64_t>(0, -padding.before) -
                           std::max<int64_t>(0, -padding.after);
      if (padding.before > kept || padding.after > kept) {
        return "a circular pad may wrap around the input at most once";
      }
      return nullptr;
    }
  }
  return nullptr;
}

int64_t PaddingSourceIndex(PaddingMode mode, const AxisPadding& padding, int64_t index) {
  const int64_t position = index - padding.before;  // in input coordinates
  const int64_t last = padding.extent - 1;
  if (position >= 0 && position <= last) return position;
  switch (mode) {
    case PaddingMode::kConstant:
      return -1;
    case PaddingMode::kReflect:
      return position < 0 ? -position : 2 * last - position;
    case PaddingMode::kReplicate:
      return position < 0 ? 0 : last;
    case PaddingMode::kCircular: {
      // The wrap stays inside the cropped part [low, high): only the side that is not cropped
      // is padded, so one shift by its length lands there.
      const int64_t low = std::max<int64_t>(0, -padding.before);
      const int64_t high = padding.extent - std::max<int64_t>(0, -padding.after);
      return position < 0 ? position + (high - low) : position - (high - low);
    }
  }
  return -1;
}

}  // namespace lumen
