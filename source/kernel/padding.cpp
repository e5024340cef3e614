#include "kernel/padding.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {

std::vector<std::ptrdiff_t> SignedStorageStrides(const Shape& shape) {
  const std::vector<size_t> strides = StorageStrides(shape);
  return std::vector<std::ptrdiff_t>(strides.begin(), strides.end());
}

Shape PaddedShape(PaddingMode mode, const Shape& input, std::vector<AxisPadding>* padding) {
  const size_t rank = input.size();
  if (padding->size() != rank) {
    throw Error(Concat("padding: ", rank, " dimensions but ", padding->size(), " paddings"));
  }
  Shape output(rank);
  for (size_t d = 0; d < rank; ++d) {
    AxisPadding& axis = (*padding)[d];
    axis.extent = input[d];
    if (const char* problem = PaddingProblem(mode, axis)) {
      throw Error(Concat(PaddingModeName(mode), " padding of dimension ", d, " (extent ", input[d],
                         ") by (", axis.before, ",", axis.after, "): ", problem));
    }
    const int64_t extent = axis.PaddedExtent();
    if (extent > std::numeric_limits<uint32_t>::max()) {
      throw Error(
          Concat("padding dimension ", d, " gives an extent of ", extent, ", above 2^32 - 1"));
    }
    output[d] = static_cast<uint32_t>(extent);
  }
  ShapeElementCount(output);  // throws when the padded tensor is too large
  return output;
}

PaddingPlan MakePaddingPlan(PaddingMode mode, const Shape& input,
                            const std::vector<std::ptrdiff_t>& source_strides,
                            std::vector<AxisPadding> padding) {
  const size_t rank = input.size();
  if (source_strides.size() != rank) {
    throw Error(
        Concat("padding plan: ", rank, " dimensions but ", source_strides.size(), " strides"));
  }
  PaddingPlan plan;
  plan.mode = mode;
  plan.output = PaddedShape(mode, input, &padding);
  // Memory order of the target: dimension d of the walk is logical dimension order[d].
  std::vector<size_t> order(rank);
  for (size_t axis = 0; axis < rank; ++axis) order[MemoryPosition(axis, rank)] = axis;
  for (size_t axis : order) {
    plan.extents.push_back(plan.output[axis]);
    plan.source_strides.push_back(source_strides[axis]);
    plan.table_starts.push_back(plan.sources.size());
    for (int64_t index = 0; index < plan.output[axis]; ++index) {
      plan.sources.push_back(PaddingSourceIndex(mode, padding[axis], index));
    }
  }
  if (rank > 0) {
    const AxisPadding& fastest = padding[order[rank - 1]];
    // Output indices that read input index (index - before), inside the input.
    const int64_t padded = fastest.PaddedExtent();
    const int64_t begin = std::clamp<int64_t>(fastest.before, 0, padded);
    const int64_t end = std::clamp<int64_t>(fastest.before + fastest.extent, begin, padded);
    plan.copy_begin = static_cast<size_t>(begin);
    plan.copy_end = static_cast<size_t>(end);
    plan.copy_source_begin = static_cast<std::ptrdiff_t>(begin - fastest.before);
  }
  return plan;
}

void Pad(const PaddingPlan& plan, const float* source, float value, float* target,
         ThreadPool* pool) {
  const size_t rank = plan.extents.size();
  if (rank == 0) {
    target[0] = source[0];
    return;
  }
  const size_t inner = plan.extents[rank - 1];
  size_t runs = 1;
  for (size_t d = 0; d + 1 < rank; ++d) runs *= plan.extents[d];
  if (inner == 0 || runs == 0) return;
  const int64_t* inner_sources = plan.sources.data() + plan.table_starts[rank - 1];
  const std::ptrdiff_t inner_stride = plan.source_strides[rank - 1];
  // Each task fills whole runs of the fastest dimension.
  ParallelForRuns(pool, runs, inner, [&](size_t first, size_t last) {
    for (size_t run = first; run < last; ++run) {
      float* out = target + run * inner;
      // The source offset of this run, or none if some outer index is in the padding.
      std::ptrdiff_t offset = 0;
      bool constant = false;
      size_t remaining = run;
      for (size_t d = rank - 1; d-- > 0;) {
        const size_t index = remaining % plan.extents[d];
        remaining /= plan.extents[d];
        const int64_t from = plan.sources[plan.table_starts[d] + index];
        if (from < 0) {
          constant = true;
          break;
        }
        offset += static_cast<std::ptrdiff_t>(from) * plan.source_strides[d];
      }
      if (constant) {
        std::fill(out, out + inner, value);
        continue;
      }
      const float* in = source + offset;
      const auto read = [&](size_t i) {
        const int64_t from = inner_sources[i];
        return from < 0 ? value : in[static_cast<std::ptrdiff_t>(from) * inner_stride];
      };
      for (size_t i = 0; i < plan.copy_begin; ++i) out[i] = read(i);
      const float* run_in = in + plan.copy_source_begin * inner_stride;
      const size_t count = plan.copy_end - plan.copy_begin;
      if (inner_stride == 1) {
        std::copy(run_in, run_in + count, out + plan.copy_begin);
      } else {
        for (size_t i = 0; i < count; ++i) {
          out[plan.copy_begin + i] = run_in[static_cast<std::ptrdiff_t>(i) * inner_stride];
        }
      }
      for (size_t i = plan.copy_end; i < inner; ++i) out[i] = read(i);
    }
  });
}

}  // namespace lumen
