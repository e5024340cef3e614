// How the kernels that work along one dimension of a tensor (softmax, cumulative scans) walk it:
// the slices along the middle of an AxisSplit lie `inner` apart, so neighbouring slices are taken
// together as "lanes" and each inner loop runs over contiguous memory.
#ifndef LUMEN_KERNEL_LANE_GROUPS_HPP_
#define LUMEN_KERNEL_LANE_GROUPS_HPP_

#include <algorithm>
#include <cstddef>

#include "base/thread_pool.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// Calls lanes_of(base, lanes) for every group of at most kLanes neighbouring slices of one outer
// block of `split` (lanes <= kLanes): the group's element e of lane l lies at
// base + e * split.inner + l. Groups are spread over `pool` (may be null) when the tensor has at
// least `parallel_elements` elements.
template <size_t kLanes, typename LanesOf>
void ForEachLaneGroup(const AxisSplit& split, size_t parallel_elements, ThreadPool* pool,
                      LanesOf&& lanes_of) {
  const size_t extent = split.extent;
  const size_t inner = split.inner;
  const size_t lane_groups = (inner + kLanes - 1) / kLanes;
  ParallelFor(
      pool, static_cast<std::ptrdiff_t>(split.outer * lane_groups),
      [&](std::ptrdiff_t task) {
        const size_t block = static_cast<size_t>(task) / lane_groups;
        const size_t first = static_cast<size_t>(task) % lane_groups * kLanes;
        lanes_of(block * extent * inner + first, std::min(kLanes, inner - first));
      },
      Schedule::kStatic, split.outer * extent * inner >= parallel_elements);
}

// Calls slice(first) for every slice along the middle of `split`, one at a time, as the
// reference kernels walk them: the slice's element e lies at first + e * split.inner.
template <typename Slice>
void ForEachSlice(const AxisSplit& split, Slice&& slice) {
  for (size_t block = 0; block < split.outer; ++block) {
    for (size_t lane = 0; lane < split.inner; ++lane) {
      slice(block * split.extent * split.inner + lane);
    }
  }
}

}  // namespace lumen

#endif  // LUMEN_KERNEL_LANE_GROUPS_HPP_
