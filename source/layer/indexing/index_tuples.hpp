// ONNX's GatherND and ScatterND address data with index tuples: the last dimension of the
// indices holds, for each of the other positions, the leading coordinates of one data element or
// slice. Shared by lumen.GatherND and lumen.ScatterND, which walk the same addressed tensor (the
// gathered output, the scattered updates) and differ only in which way they copy.
#ifndef LUMEN_LAYER_INDEXING_INDEX_TUPLES_HPP_
#define LUMEN_LAYER_INDEXING_INDEX_TUPLES_HPP_

#include <cstddef>
#include <vector>

#include "layer/indexing/coordinates.hpp"

namespace lumen {

// The shape of the tensor the tuples address, indices.shape[:-1] + data.shape[batch + length:]
// (length = the indices' last extent): GatherND's output, ScatterND's updates. The shapes must
// have been checked (a last extent from 1 to data's rank less batch).
inline Shape AddressedShape(const Shape& data, const Shape& indices, size_t batch) {
  Shape addressed(indices.begin(), indices.end() - 1);
  addressed.insert(addressed.end(),
                   data.begin() + static_cast<std::ptrdiff_t>(batch + indices.back()), data.end());
  return addressed;
}

// How each position of the addressed tensor finds its data element, for one set of shapes: the
// first `batch` coordinates are shared with data, the tuple at the position's other coordinates
// (all but the trailing sliced ones) gives the next `length`, and the trailing ones follow.
// Computed in Prepare; ForEachPosition allocates nothing.
struct IndexTupleAddressing {
  Shape data;
  std::vector<size_t> data_strides;
  std::vector<size_t> index_strides;
  size_t prefix_rank = 0;   // the indices' rank but the last
  size_t tuple_length = 0;  // the indices' last extent
  size_t batch = 0;         // leading dims data and indices share (GatherND's batch_dims)

  IndexTupleAddressing(const Shape& data_shape, const Shape& indices, size_t batch_dims)
      : data(data_shape),
        data_strides(StorageStrides(data_shape)),
        index_strides(StorageStrides(indices)),
        prefix_rank(indices.size() - 1),
        tuple_length(indices.back()),
        batch(batch_dims) {}

  // Calls visit(position, data_offset) for every position of the addressed tensor (of shape
  // `addressed`) in row-major order, with the storage offset in data of the element its tuple in
  // `indices` names (index values count from the end when negative). Stops at the first value out
  // of range and returns false with it in `bad`, the positions before it visited.
  template <typename Visit>
  bool ForEachPosition(const Shape& addressed, const float* indices, float* bad,
                       Visit visit) const {
    bool in_range = true;
    ForEachCoordinate(addressed, [&](const Coordinates& position) {
      size_t offset = 0;
      if (in_range && (in_range = DataOffset(indices, position, &offset, bad))) {
        visit(position, offset);
      }
    });
    return in_range;
  }

 private:
  // The data offset `position` names, or false with the value out of range in `bad`.
  bool DataOffset(const float* indices, const Coordinates& position, size_t* offset,
                  float* bad) const {
    Coordinates source{};
    for (size_t d = 0; d < batch; ++d) source[d] = position[d];
    const size_t slice_first = batch + tuple_length;  // data's first sliced dim
    for (size_t d = slice_first; d < data.size(); ++d) {
      source[d] = position[prefix_rank + d - slice_first];
    }
    Coordinates at = position;
    for (size_t k = 0; k < tuple_length; ++k) {
      at[prefix_rank] = k;
      const float value = indices[StorageOffsetOf(at, index_strides)];
      if (!ResolveIndexValue(value, data[batch + k], &source[batch + k])) {
        *bad = value;
        return false;
      }
    }
    *offset = StorageOffsetOf(source, data_strides);
    return true;
  }
};

}  // namespace lumen

#endif  // LUMEN_LAYER_INDEXING_INDEX_TUPLES_HPP_
