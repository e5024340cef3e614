#include "tensor/broadcast.hpp"

#include <algorithm>

#include "lumen/error.hpp"

namespace lumen {
namespace {

// Left-pads `shape` with ones to `rank` dimensions, then swaps the last two: the order in which
// a tensor of that shape lays out its elements in memory, outermost first.
std::vector<size_t> StorageExtents(const Shape& shape, size_t rank) {
  std::vector<size_t> extents(rank - shape.size(), 1);
  extents.insert(extents.end(), shape.begin(), shape.end());
  if (rank >= 2) std::swap(extents[rank - 1], extents[rank - 2]);
  return extents;
}

// Row-major strides over `extents`, with 0 for a dimension of extent 1 (broadcast or trivial).
std::vector<size_t> StridesOf(const std::vector<size_t>& extents) {
  std::vector<size_t> strides(extents.size());
  size_t stride = 1;
  for (size_t dim = extents.size(); dim-- > 0;) {
    strides[dim] = extents[dim] == 1 ? 0 : stride;
    stride *= extents[dim];
  }
  return strides;
}

}  // namespace

Shape BroadcastShapes(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape result(rank);
  for (size_t i = 0; i < rank; ++i) {
    const uint32_t extent_a = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const uint32_t extent_b = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (extent_a != extent_b && extent_a != 1 && extent_b != 1) {
      throw Error(Concat("shapes ", ShapeToString(a), " and ", ShapeToString(b),
                         " cannot be broadcast together"));
    }
    result[i] = extent_a == 1 ? extent_b : extent_a;
  }
  return result;
}

BroadcastWalk::BroadcastWalk(const Shape& result_shape, const std::vector<Shape>& operand_shapes) {
  if (operand_shapes.size() > 2) throw Error("BroadcastWalk takes at most two operands");
  const size_t rank = std::max<size_t>(result_shape.size(), 1);
  const std::vector<size_t> extents = StorageExtents(result_shape, rank);
  std::vector<size_t> result_strides = StridesOf(extents);
  std::vector<size_t> operand_strides[2] = {std::vector<size_t>(rank, 0),
                                            std::vector<size_t>(rank, 0)};
  for (size_t i = 0; i < operand_shapes.size(); ++i) {
    if (operand_shapes[i].size() > rank ||
        BroadcastShapes(operand_shapes[i], result_shape) != result_shape) {
      throw Error(Concat("shape ", ShapeToString(operand_shapes[i]), " does not broadcast to ",
                         ShapeToString(result_shape)));
    }
    operand_strides[i] = StridesOf(StorageExtents(operand_shapes[i], rank));
  }
  element_count_ = ShapeElementCount(result_shape);

  // Merge each dimension into the previous kept one when all three tensors step through the pair
  // as through one longer dimension; drop dimensions of extent 1.
  for (size_t dim = 0; dim < rank; ++dim) {
    if (extents[dim] == 1) continue;
    const bool mergeable = !extents_.empty() &&
                           result_strides_.back() == result_strides[dim] * extents[dim] &&
                           operand_strides_[0].back() == operand_strides[0][dim] * extents[dim] &&
                           operand_strides_[1].back() == operand_strides[1][dim] * extents[dim];
    if (mergeable) {
      extents_.back() *= extents[dim];
      result_strides_.back() = result_strides[dim];
      operand_strides_[0].back() = operand_strides[0][dim];
      operand_strides_[1].back() = operand_strides[1][dim];
    } else {
      extents_.push_back(extents[dim]);
      result_strides_.push_back(result_strides[dim]);
      operand_strides_[0].push_back(operand_strides[0][dim]);
      operand_strides_[1].push_back(operand_strides[1][dim]);
    }
  }
  if (extents_.empty()) {  // a single element
    extents_ = {1};
    result_strides_ = {1};
    operand_strides_[0] = {0};
    operand_strides_[1] = {0};
  }
  inner_strides_[0] = operand_strides_[0].back();
  inner_strides_[1] = operand_strides_[1].back();
}

}  // namespace lumen
