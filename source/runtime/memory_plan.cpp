#include "runtime/memory_plan.hpp"

#include <algorithm>
#include <numeric>

namespace lumen {

MemoryPlan PlanMemory(const std::vector<BufferLifetime>& buffers, size_t alignment) {
  // LESSON 11 BEGIN: offsets in one arena: buffers alive together never overlap
  MemoryPlan plan;
  plan.offsets.assign(buffers.size(), 0);
  const auto round_up = [alignment](size_t value) {
    return (value + alignment - 1) / alignment * alignment;
  };
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return buffers[a].size > buffers[b].size; });
  std::vector<size_t> placed;
  for (size_t index : order) {
    const BufferLifetime& buffer = buffers[index];
    plan.separate_size += round_up(buffer.size);
    // The already-placed buffers alive at the same time, by offset: take the first gap that fits.
    std::vector<size_t> conflicts;
    for (size_t other : placed) {
      if (buffers[other].first_step <= buffer.last_step &&
          buffer.first_step <= buffers[other].last_step) {
        conflicts.push_back(other);
      }
    }
    std::sort(conflicts.begin(), conflicts.end(),
              [&](size_t a, size_t b) { return plan.offsets[a] < plan.offsets[b]; });
    size_t offset = 0;
    for (size_t other : conflicts) {
      if (offset + buffer.size <= plan.offsets[other]) break;
      offset = std::max(offset, round_up(plan.offsets[other] + buffers[other].size));
    }
    plan.offsets[index] = offset;
    plan.arena_size = std::max(plan.arena_size, round_up(offset + buffer.size));
    placed.push_back(index);
  }
  return plan;
  // LESSON 11 END
}

}  // namespace lumen
