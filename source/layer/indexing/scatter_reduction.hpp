// How a scattered value combines with the value already at its position: shared by torch.scatter
// / torch.scatter_reduce and ONNX's ScatterND (lumen.ScatterND).
#ifndef LUMEN_LAYER_INDEXING_SCATTER_REDUCTION_HPP_
#define LUMEN_LAYER_INDEXING_SCATTER_REDUCTION_HPP_

#include <cmath>
#include <string>
#include <utility>

namespace lumen {

// Replace, add, multiply, average (summed, then divided by the layer), keep the larger or the
// smaller.
enum class ScatterReduction { kNone, kSum, kProd, kMean, kMax, kMin };

// torch.scatter_reduce's reduce names, which Lumen's lumen.ScatterND reads as well (the ONNX
// reader translates ONNX's).
inline const std::pair<const char*, ScatterReduction> kScatterReduceNames[] = {
    {"sum", ScatterReduction::kSum},
    {"prod", ScatterReduction::kProd},
    {"mean", ScatterReduction::kMean},
    {"amax", ScatterReduction::kMax},
    {"amin", ScatterReduction::kMin}};

// The reduction `name` spells in `names` (pairs of a name and its reduction); false if none.
template <size_t count>
bool ParseScatterReduction(const std::string& name,
                           const std::pair<const char*, ScatterReduction> (&names)[count],
                           ScatterReduction* reduction) {
  for (const auto& entry : names) {
    if (name == entry.first) {
      *reduction = entry.second;
      return true;
    }
  }
  return false;
}

// Combines `value` into `destination`; a NaN wins a max or min, as in PyTorch and numpy.
inline void CombineScattered(ScatterReduction reduction, float value, float* destination) {
  switch (reduction) {
    case ScatterReduction::kNone:
      *destination = value;
      break;
    case ScatterReduction::kSum:
    case ScatterReduction::kMean:  // the layer divides by the count afterwards
      *destination += value;
      break;
    case ScatterReduction::kProd:
      *destination *= value;
      break;
    case ScatterReduction::kMax:
      if (std::isnan(value) || value > *destination) *destination = value;
      break;
    case ScatterReduction::kMin:
      if (std::isnan(value) || value < *destination) *destination = value;
      break;
  }
}

}  // namespace lumen

#endif  // LUMEN_LAYER_INDEXING_SCATTER_REDUCTION_HPP_
