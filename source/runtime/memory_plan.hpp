// Memory planning: operands whose lifetimes do not overlap share storage.
//
// Every operand is written by one step and read until its last consumer runs; after that its
// memory is free for operands produced later. Placing all operands in one arena so that operands
// alive at the same time never overlap cuts ResNet18's activation memory several times over.
#ifndef LUMEN_RUNTIME_MEMORY_PLAN_HPP_
#define LUMEN_RUNTIME_MEMORY_PLAN_HPP_

#include <cstddef>
#include <vector>

namespace lumen {

// Where each buffer goes in one arena, in floats.
struct MemoryPlan {
  std::vector<size_t> offsets;  // one per buffer, same order
  size_t arena_size = 0;        // floats the arena needs
  size_t separate_size = 0;     // floats one buffer per operand would need
};

// One buffer to place: how many floats, and the steps from its producer to its last reader.
struct BufferLifetime {
  size_t size = 0;
  int first_step = 0;
  int last_step = 0;
};

// Places buffers greedily, largest first, each at the lowest offset (a multiple of `alignment`
// floats) where it overlaps no already-placed buffer that is alive at the same time.
MemoryPlan PlanMemory(const std::vector<BufferLifetime>& buffers, size_t alignment);

// Where a buffer lives when it is stored inside another one, its host (a concatenation's input
// inside the concatenation's output, so that its producer writes it in place): the host's index in
// the same list and the offset inside it, in floats. host -1: the buffer has its own place.
struct Placement {
  int host = -1;
  size_t offset = 0;
};

// PlanMemory for buffers of which some live inside others (`placements`, one per buffer): each host
// stays alive from its guests' first step to their last, the guests take no room of their own, and
// their offsets are their host's plus their place inside it. A host may itself be a guest.
MemoryPlan PlanMemoryWithGuests(std::vector<BufferLifetime> buffers,
                                const std::vector<Placement>& placements, size_t alignment);

}  // namespace lumen

#endif  // LUMEN_RUNTIME_MEMORY_PLAN_HPP_
