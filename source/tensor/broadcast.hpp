// Broadcasting: PyTorch's rule for combining tensors of different shapes element by element, and
// a plan for walking such tensors in their fcube storage order.
#ifndef LUMEN_TENSOR_BROADCAST_HPP_
#define LUMEN_TENSOR_BROADCAST_HPP_

#include <cstddef>
#include <vector>

#include "base/thread_pool.hpp"
#include "lumen/tensor.hpp"

namespace lumen {

// The shape two shapes broadcast to: align them at the last dimension, and in each dimension the
// extents must be equal or one of them 1. Throws lumen::Error if they are incompatible.
Shape BroadcastShapes(const Shape& a, const Shape& b);

// A plan for computing result[i] = f(operand_0[...], operand_1[...]) over every element of a result
// tensor, where each operand's shape broadcasts to the result's.
//
// Tensor memory order is row-major with the last two dimensions swapped (see tensor.hpp), so the
// walk runs over the result's dimensions in that order, giving each operand a stride per dimension
// (0 where it is broadcast). Dimensions that are contiguous for every tensor are merged, so equal
// shapes become one flat run and a per-channel (C,1,1) operand against (C,H,W) becomes C runs of
// H*W elements with a constant operand.
class BroadcastWalk {
 public:
  // One stretch of `count` result elements whose operands advance by fixed strides.
  struct Run {
    size_t result_offset;
    size_t operand_offsets[2];
    size_t count;
  };

  // Plans the walk for up to two operands whose shapes broadcast to `result_shape`.
  BroadcastWalk(const Shape& result_shape, const std::vector<Shape>& operand_shapes);

  // Stride of an operand inside a run: 1 (contiguous) or 0 (a repeated element) in common cases.
  size_t inner_stride(size_t operand) const { return inner_strides_[operand]; }

  // Number of dimensions left after merging (1 for equal shapes).
  size_t merged_rank() const { return extents_.size(); }

  // Calls run_function(const Run&) for every run, splitting the work over `pool`'s threads unless
  // `pool` is null or `parallel` is false (needed when runs write to shared places, as a
  // reduction does).
  template <typename RunFunction>
  void ForEachRun(RunFunction run_function, ThreadPool* pool, bool parallel = true) const;

 private:
  std::vector<size_t> extents_;  // merged result dimensions, storage order
  std::vector<size_t> result_strides_;
  std::vector<size_t> operand_strides_[2];
  size_t inner_strides_[2] = {0, 0};
  size_t element_count_ = 0;
};

template <typename RunFunction>
void BroadcastWalk::ForEachRun(RunFunction run_function, ThreadPool* pool, bool parallel) const {
  constexpr size_t kChunk = 1 << 14;  // elements per task when there is one long run
  constexpr size_t kParallelThreshold = 1 << 15;
  const size_t inner = extents_.back();
  const size_t outer_count = inner == 0 ? 0 : element_count_ / inner;
  if (outer_count == 1) {
    // One long run (equal shapes): cut it into chunks so that every thread gets a share.
    const auto chunks = static_cast<std::ptrdiff_t>((inner + kChunk - 1) / kChunk);
    ParallelFor(
        pool, chunks,
        [&](std::ptrdiff_t chunk) {
          const size_t start = static_cast<size_t>(chunk) * kChunk;
          run_function(Run{start,
                           {start * inner_strides_[0], start * inner_strides_[1]},
                           std::min(kChunk, inner - start)});
        },
        Schedule::kStatic, parallel && chunks > 1);
    return;
  }
  const auto outer = static_cast<std::ptrdiff_t>(outer_count);
  ParallelFor(
      pool, outer,
      [&](std::ptrdiff_t index) {
        Run run{0, {0, 0}, inner};
        size_t remaining = static_cast<size_t>(index);
        for (size_t dim = extents_.size() - 1; dim-- > 0;) {
          const size_t position = remaining % extents_[dim];
          remaining /= extents_[dim];
          run.result_offset += position * result_strides_[dim];
          run.operand_offsets[0] += position * operand_strides_[0][dim];
          run.operand_offsets[1] += position * operand_strides_[1][dim];
        }
        run_function(run);
      },
      Schedule::kStatic, parallel && element_count_ >= kParallelThreshold);
}

}  // namespace lumen

#endif  // LUMEN_TENSOR_BROADCAST_HPP_
