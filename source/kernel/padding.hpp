// Padding a tensor of any rank: the kernel behind F.pad, the nn.*Pad*d modules and the padding
// modes of convolution (which pad their input, then convolve without padding).
#ifndef LUMEN_KERNEL_PADDING_HPP_
#define LUMEN_KERNEL_PADDING_HPP_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/thread_pool.hpp"
#include "lumen/tensor.hpp"
#include "math/padding.hpp"

namespace lumen {

// How to fill a padded tensor, for one input shape: made once per session by MakePaddingPlan,
// run by Pad. The source is read through explicit strides, so a plan can also change the layout
// on the way (1-D convolution reads (N,C,L) with its channels innermost and writes each channel's
// row contiguous).
struct PaddingPlan {
  PaddingMode mode = PaddingMode::kConstant;
  // The padded shape; the target is written in its Tensor layout (StorageStrides).
  Shape output;
  // Per output dimension, in the target's memory order (fastest last): its extent, the source's
  // memory step, and where the dimension's entries start in `sources`.
  std::vector<size_t> extents;
  std::vector<std::ptrdiff_t> source_strides;
  std::vector<size_t> table_starts;
  // For each output index of each dimension, the source index it reads, or -1 for the constant.
  std::vector<int64_t> sources;
  // The fastest dimension copies output indices [copy_begin, copy_end) straight from source
  // indices copy_source_begin, copy_source_begin + 1, ...: the run inside the input.
  size_t copy_begin = 0;
  size_t copy_end = 0;
  std::ptrdiff_t copy_source_begin = 0;

  // Bytes the plan holds (for the session's memory report).
  size_t bytes() const {
    return sources.size() * sizeof(int64_t) +
           (extents.size() + table_starts.size()) * sizeof(size_t) +
           source_strides.size() * sizeof(std::ptrdiff_t);
  }
};

// The shape of `input` padded by `padding[d]` on each dimension d (same length as `input`), whose
// extents it sets from `input`; throws lumen::Error saying which dimension PyTorch would refuse
// and why, or when the result is too large to index. Shape inference alone: no tables.
Shape PaddedShape(PaddingMode mode, const Shape& input, std::vector<AxisPadding>* padding);

// Plans padding the source of logical shape `input`, read with `source_strides` (one per
// dimension, in elements), by `padding[d]` on each dimension d (same length as `input`; extent is
// taken from `input`). Throws lumen::Error saying which dimension PyTorch would refuse and why.
PaddingPlan MakePaddingPlan(PaddingMode mode, const Shape& input,
                            const std::vector<std::ptrdiff_t>& source_strides,
                            std::vector<AxisPadding> padding);

// The Tensor layout's strides of `shape` as signed steps, for MakePaddingPlan.
std::vector<std::ptrdiff_t> SignedStorageStrides(const Shape& shape);

// Writes the padded tensor to `target` (ShapeElementCount(plan.output) floats, in the Tensor
// layout of plan.output), reading `source`; constant positions get `value`. Spreads the work over
// `pool` (may be null); allocates nothing.
void Pad(const PaddingPlan& plan, const float* source, float value, float* target,
         ThreadPool* pool);

}  // namespace lumen

#endif  // LUMEN_KERNEL_PADDING_HPP_
