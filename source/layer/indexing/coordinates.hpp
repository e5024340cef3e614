// Logical coordinates for the layers that address single elements (roll, gather, scatter, diag,
// masked selection, ...): walking a shape in PyTorch's row-major order and finding where an element
// lives in Lumen's storage (row-major with the last two dimensions swapped, tensor.hpp).
#ifndef LUMEN_LAYER_INDEXING_COORDINATES_HPP_
#define LUMEN_LAYER_INDEXING_COORDINATES_HPP_

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lumen/tensor.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// One element's logical index, one entry per dimension (fixed size: Forward must not allocate).
using Coordinates = std::array<size_t, kMaxRank>;

// Calls visit(coordinates) for every element of `shape` in row-major order (the last dimension
// fastest), which is the order PyTorch lists elements in (masked_select, flatten).
template <typename Visit>
void ForEachCoordinate(const Shape& shape, Visit visit) {
  for (uint32_t extent : shape) {
    if (extent == 0) return;
  }
  Coordinates coordinates{};
  const size_t rank = shape.size();
  while (true) {
    visit(static_cast<const Coordinates&>(coordinates));
    size_t d = rank;
    while (d > 0) {
      --d;
      if (++coordinates[d] < shape[d]) break;
      coordinates[d] = 0;
      if (d == 0) return;
    }
    if (rank == 0) return;
  }
}

// Where the element at `coordinates` lives in storage, given the tensor's StorageStrides.
inline size_t StorageOffsetOf(const Coordinates& coordinates, const std::vector<size_t>& strides) {
  size_t offset = 0;
  for (size_t d = 0; d < strides.size(); ++d) offset += coordinates[d] * strides[d];
  return offset;
}

// For each dimension of `result`, the storage stride of an operand of shape `operand` that
// broadcasts to it (aligned at the last dimension), 0 where the operand is broadcast: with these,
// StorageOffsetOf finds the operand's element for a result coordinate.
inline std::vector<size_t> BroadcastStrides(const Shape& operand, const Shape& result) {
  const std::vector<size_t> strides = StorageStrides(operand);
  std::vector<size_t> broadcast(result.size(), 0);
  const size_t lead = result.size() - operand.size();
  for (size_t d = 0; d < operand.size(); ++d) {
    if (operand[d] != 1) broadcast[lead + d] = strides[d];
  }
  return broadcast;
}

// The coordinates of the element at row-major position `index` of `shape`.
inline Coordinates CoordinatesOfRowMajor(size_t index, const Shape& shape) {
  Coordinates coordinates{};
  for (size_t d = shape.size(); d-- > 0;) {
    coordinates[d] = index % shape[d];
    index /= shape[d];
  }
  return coordinates;
}

// Largest extent whose positions float32 holds exactly: index values reach layers as floats.
inline constexpr size_t kMaxExactIndex = size_t{1} << 24;

// True when `value` is a whole number in [-extent, extent) (PyTorch's range for an index that may
// count from the end); `position` receives it in [0, extent).
inline bool ResolveIndexValue(float value, size_t extent, size_t* position) {
  const auto signed_extent = static_cast<double>(extent);
  if (!(value >= -signed_extent && value < signed_extent) || value != std::floor(value)) {
    return false;
  }
  *position = static_cast<size_t>(value < 0 ? value + signed_extent : value);
  return true;
}

}  // namespace lumen

#endif  // LUMEN_LAYER_INDEXING_COORDINATES_HPP_
