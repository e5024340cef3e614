// ONNX's GatherND and ScatterND address data with index tuples: the last dimension of the
// indices holds, for each of the other positions, the leading coordinates of one data element or
// slice. Shared by lumen.GatherND and lumen.ScatterND.
#ifndef LUMEN_LAYER_INDEXING_INDEX_TUPLES_HPP_
#define LUMEN_LAYER_INDEXING_INDEX_TUPLES_HPP_

#include <cstddef>
#include <vector>

#include "layer/indexing/coordinates.hpp"

namespace lumen {

// Reads the tuple of `length` index values at `position` (the indices' coordinates but the
// last, `prefix_rank` of them) into target[first], target[first + 1], ..., each counted from the
// end when negative and checked against data's extent there. Returns false on a value out of
// range, which `bad` then receives.
inline bool ResolveIndexTuple(const float* indices, const std::vector<size_t>& index_strides,
                              const Coordinates& position, size_t prefix_rank, size_t length,
                              const Shape& data, size_t first, Coordinates* target, float* bad) {
  Coordinates at = position;
  for (size_t k = 0; k < length; ++k) {
    at[prefix_rank] = k;
    const float value = indices[StorageOffsetOf(at, index_strides)];
    if (!ResolveIndexValue(value, data[first + k], &(*target)[first + k])) {
      *bad = value;
      return false;
    }
  }
  return true;
}

}  // namespace lumen

#endif  // LUMEN_LAYER_INDEXING_INDEX_TUPLES_HPP_
