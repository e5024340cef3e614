// Reading a tensor along one dimension, or in another order: the memory arithmetic that cat,
// split, softmax, permute, slice and friends share.
//
// Memory order is row-major over the logical dimensions with the last two swapped (tensor.hpp).
// The helpers here turn a logical dimension into memory strides once, so layers never repeat it.
#ifndef LUMEN_TENSOR_STRIDED_HPP_
#define LUMEN_TENSOR_STRIDED_HPP_

#include <cstddef>
#include <vector>

#include "base/thread_pool.hpp"
#include "lumen/tensor.hpp"

namespace lumen {

// The position of logical dimension `axis` of a rank-`rank` tensor in memory order, slowest
// first: the layout rule of tensor.hpp (row-major with the last two dimensions swapped) in one
// place. Its own inverse: dimension `position` in memory order is logical dimension
// MemoryPosition(position, rank).
size_t MemoryPosition(size_t axis, size_t rank);

// For each logical dimension of `shape`, the distance in memory between neighbouring elements.
std::vector<size_t> StorageStrides(const Shape& shape);

// A tensor seen as (outer, extent, inner) blocks around one logical dimension, in memory order:
// element e along the dimension, in block o, at offset i, is at memory (o * extent + e) * inner +
// i.
struct AxisSplit {
  size_t outer;
  size_t extent;
  size_t inner;
};

// Splits `shape` around logical dimension `axis` (0-based).
AxisSplit SplitAroundAxis(const Shape& shape, size_t axis);

// Fills `output` by reading `input` with arbitrary steps: the output element at logical index
// (i_0, ..., i_k) is input.data()[offset + i_0 * strides[0] + ... + i_k * strides[k]].
// Permute, transpose and slice are all this with different strides. Spreads the work over `pool`
// (may be null) when there is enough of it; allocates nothing.
void GatherStrided(const Tensor& input, std::ptrdiff_t offset,
                   const std::vector<std::ptrdiff_t>& strides, Tensor* output, ThreadPool* pool);

// A copy between two strided layouts: index (i_0, ..., i_k) of `extents` reads
// source[source_offset + sum i_d * source_strides[d]] and writes
// target[target_offset + sum i_d * target_strides[d]]. Stack, repeat, pixel shuffle and the
// transposes of 1-D convolution are all this with different strides. Made once per session (in
// Prepare, by MakeStridedCopy), run by RunStridedCopy without allocating.
struct StridedCopy {
  std::vector<size_t> extents;
  std::vector<std::ptrdiff_t> source_strides;
  std::vector<std::ptrdiff_t> target_strides;
  std::ptrdiff_t source_offset = 0;
  std::ptrdiff_t target_offset = 0;
};

// The most dimensions a StridedCopy may have: a repeat splits each of kMaxRank dimensions in two.
inline constexpr size_t kMaxStridedCopyRank = 2 * kMaxRank;

// Orders the dimensions of `copy` so that the walk writes the target in memory order (largest
// target stride outermost) and drops dimensions of extent 1. Throws lumen::Error when the lists
// differ in length or hold more than kMaxStridedCopyRank dimensions.
StridedCopy MakeStridedCopy(StridedCopy copy);

// Runs `copy` from `source` into `target`, spreading the work over `pool` (may be null) when there
// is enough of it. Every target position must be written at most once (true of every copy above).
void RunStridedCopy(const StridedCopy& copy, const float* source, float* target, ThreadPool* pool);

// The strided copy that moves a tensor of shape `source` into shape `target` in row-major order
// (a reshape), ordered by MakeStridedCopy, when one exists: when both shapes split into whole
// runs of one common list of extents, e.g. (197,12,8) and (197,96). Returns false when the
// extents do not nest, as (2,3) and (3,2) do not, or the element counts differ.
bool ReshapeAsStridedCopy(const Shape& source, const Shape& target, StridedCopy* copy);

}  // namespace lumen

#endif  // LUMEN_TENSOR_STRIDED_HPP_
