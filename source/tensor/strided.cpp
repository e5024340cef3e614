#include "lumen/tensor/strided.hpp"

#include <array>

#include <utility>

#include "lumen/base/error.hpp"
#include "lumen/base/thread_pool.hpp"

namespace lumen {
namespace {

// Position of logical dimension `axis` in memory order (the last two dimensions are swapped).
size_t MemoryPosition(size_t axis, size_t rank) {
  if (rank >= 2 && axis == rank - 1) return rank - 2;
  if (rank >= 2 && axis == rank - 2) return rank - 1;
  return axis;
}

}  // namespace

std::vector<size_t> StorageStrides(const Shape& shape) {
  const size_t rank = shape.size();
  std::vector<size_t> memory_extents(rank);
  for (size_t axis = 0; axis < rank; ++axis)
    memory_extents[MemoryPosition(axis, rank)] = shape[axis];
  std::vector<size_t> memory_strides(rank);
  size_t stride = 1;
  for (size_t position = rank; position-- > 0;) {
    memory_strides[position] = stride;
    stride *= memory_extents[position];
  }
  std::vector<size_t> strides(rank);
  for (size_t axis = 0; axis < rank; ++axis)
    strides[axis] = memory_strides[MemoryPosition(axis, rank)];
  return strides;
}

AxisSplit SplitAroundAxis(const Shape& shape, size_t axis) {
  if (axis >= shape.size()) {
    throw Error(Concat("dimension ", axis, " is out of range for shape ", ShapeToString(shape)));
  }
  const std::vector<size_t> strides = StorageStrides(shape);
  AxisSplit split{1, shape[axis], strides[axis]};
  // Outer = the product of the other extents, computed without dividing: an empty dimension
  // (extent 0) anywhere must give an empty walk, not a division by zero.
  split.outer = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d != axis) split.outer *= shape[d];
  }
  if (split.inner != 0) split.outer /= split.inner;
  return split;
}

void GatherStrided(const Tensor& input, std::ptrdiff_t offset,
                   const std::vector<std::ptrdiff_t>& strides, Tensor* output, ThreadPool* pool) {
  const Shape& shape = output->shape();
  const size_t rank = shape.size();
  if (strides.size() != rank) {
    throw Error(Concat("GatherStrided: ", strides.size(), " strides for an output of shape ",
                       ShapeToString(shape)));
  }
  if (rank > kMaxRank) throw Error(Concat("GatherStrided: rank ", rank, " is above ", kMaxRank));
  // Walk the output in memory order: the innermost loop is its fastest dimension. Fixed-size
  // arrays: layers call this in Forward, which must not allocate.
  std::array<size_t, kMaxRank> extents{};
  std::array<std::ptrdiff_t, kMaxRank> steps{};
  for (size_t axis = 0; axis < rank; ++axis) {
    extents[MemoryPosition(axis, rank)] = shape[axis];
    steps[MemoryPosition(axis, rank)] = strides[axis];
  }
  if (rank == 0 || output->empty()) {
    if (!output->empty()) output->data()[0] = input.data()[offset];
    return;
  }
  const size_t inner = extents[rank - 1];  // not back(): the arrays are kMaxRank long
  const std::ptrdiff_t inner_step = steps[rank - 1];
  const auto outer = static_cast<std::ptrdiff_t>(output->size() / inner);
  const float* source = input.data();
  float* target = output->data();
  ParallelFor(
      pool, outer,
      [&](std::ptrdiff_t block) {
        std::ptrdiff_t position = offset;
        size_t remaining = static_cast<size_t>(block);
        for (size_t dim = rank - 1; dim-- > 0;) {
          position += static_cast<std::ptrdiff_t>(remaining % extents[dim]) * steps[dim];
          remaining /= extents[dim];
        }
        float* run = target + static_cast<size_t>(block) * inner;
        for (size_t i = 0; i < inner; ++i)
          run[i] = source[position + static_cast<std::ptrdiff_t>(i) * inner_step];
      },
      Schedule::kStatic, output->size() >= (1 << 15));
}

}  // namespace lumen
