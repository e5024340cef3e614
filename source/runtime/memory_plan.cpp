#include "runtime/memory_plan.hpp"

#include <algorithm>
#include <functional>
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

MemoryPlan PlanMemoryWithGuests(std::vector<BufferLifetime> buffers,
                                const std::vector<Placement>& placements, size_t alignment) {
  // Grow each host over its guests' lifetimes; a guest that is a host too may grow first, so
  // repeat until nothing changes (once per level of nesting).
  for (bool grown = true; grown;) {
    grown = false;
    for (size_t guest = 0; guest < buffers.size(); ++guest) {
      if (placements[guest].host < 0) continue;
      BufferLifetime& host = buffers[static_cast<size_t>(placements[guest].host)];
      const BufferLifetime& inside = buffers[guest];
      if (inside.first_step < host.first_step || inside.last_step > host.last_step) {
        host.first_step = std::min(host.first_step, inside.first_step);
        host.last_step = std::max(host.last_step, inside.last_step);
        grown = true;
      }
    }
  }
  // Plan the buffers with a place of their own, then put every guest inside its host.
  std::vector<BufferLifetime> own;
  std::vector<size_t> own_index(buffers.size(), 0);
  for (size_t b = 0; b < buffers.size(); ++b) {
    if (placements[b].host >= 0) continue;
    own_index[b] = own.size();
    own.push_back(buffers[b]);
  }
  const MemoryPlan own_plan = PlanMemory(own, alignment);
  MemoryPlan plan;
  plan.arena_size = own_plan.arena_size;
  plan.separate_size = own_plan.separate_size;
  plan.offsets.assign(buffers.size(), 0);
  const std::function<size_t(size_t)> offset_of = [&](size_t b) -> size_t {
    const Placement& placement = placements[b];
    if (placement.host < 0) return own_plan.offsets[own_index[b]];
    return offset_of(static_cast<size_t>(placement.host)) + placement.offset;
  };
  for (size_t b = 0; b < buffers.size(); ++b) {
    plan.offsets[b] = offset_of(b);
    if (placements[b].host >= 0) {
      plan.separate_size += (buffers[b].size + alignment - 1) / alignment * alignment;
    }
  }
  return plan;
}

}  // namespace lumen
