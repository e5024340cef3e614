// Reading a tensor along one dimension, or in another order: the memory arithmetic that cat,
// split, softmax, permute, slice and friends share.
//
// Memory order is row-major over the logical dimensions with the last two swapped (tensor.hpp).
// The helpers here turn a logical dimension into memory strides once, so layers never repeat it.
#ifndef LUMEN_TENSOR_STRIDED_HPP_
#define LUMEN_TENSOR_STRIDED_HPP_

#include <cstddef>
#include <vector>

#include "lumen/base/thread_pool.hpp"
#include "lumen/tensor/tensor.hpp"

namespace lumen {

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

}  // namespace lumen

#endif  // LUMEN_TENSOR_STRIDED_HPP_
