// PlanMemory: buffers alive at the same step never overlap; the others share.
#include <gtest/gtest.h>

#include <random>

#include "runtime/memory_plan.hpp"

namespace lumen {
namespace {

// True when no two buffers alive at a common step overlap in the arena.
bool PlanIsSafe(const std::vector<BufferLifetime>& buffers, const MemoryPlan& plan) {
  for (size_t a = 0; a < buffers.size(); ++a) {
    for (size_t b = a + 1; b < buffers.size(); ++b) {
      const bool alive_together = buffers[a].first_step <= buffers[b].last_step &&
                                  buffers[b].first_step <= buffers[a].last_step;
      const bool overlap = plan.offsets[a] < plan.offsets[b] + buffers[b].size &&
                           plan.offsets[b] < plan.offsets[a] + buffers[a].size;
      if (alive_together && overlap) return false;
    }
    if (plan.offsets[a] + buffers[a].size > plan.arena_size) return false;
  }
  return true;
}

TEST(MemoryPlan, AChainReusesTwoBuffers) {
  // step i produces buffer i, step i + 1 reads it: only neighbours are alive together.
  std::vector<BufferLifetime> buffers;
  for (int i = 0; i < 10; ++i) buffers.push_back({100, i, i + 1});
  const MemoryPlan plan = PlanMemory(buffers, 16);
  EXPECT_TRUE(PlanIsSafe(buffers, plan));
  EXPECT_EQ(plan.arena_size, 2u * 112);  // two buffers, each rounded up to 16 floats
  EXPECT_EQ(plan.separate_size, 10u * 112);
  for (size_t offset : plan.offsets) EXPECT_EQ(offset % 16, 0u);
}

TEST(MemoryPlan, BuffersAliveTogetherNeverShare) {
  const std::vector<BufferLifetime> buffers = {{50, 0, 5}, {50, 0, 5}, {50, 0, 5}};
  const MemoryPlan plan = PlanMemory(buffers, 1);
  EXPECT_TRUE(PlanIsSafe(buffers, plan));
  EXPECT_EQ(plan.arena_size, 150u);
}

TEST(MemoryPlan, RandomGraphsAreAlwaysSafe) {
  std::mt19937 generator(3);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<BufferLifetime> buffers;
    const int count = 1 + static_cast<int>(generator() % 30);
    for (int i = 0; i < count; ++i) {
      const int first = static_cast<int>(generator() % 20);
      buffers.push_back({1 + generator() % 1000, first, first + static_cast<int>(generator() % 6)});
    }
    const MemoryPlan plan = PlanMemory(buffers, 16);
    ASSERT_TRUE(PlanIsSafe(buffers, plan)) << "trial " << trial;
    EXPECT_LE(plan.arena_size, plan.separate_size);
  }
}

TEST(MemoryPlan, GuestsLiveInsideTheirHostWhichOutlivesThem) {
  // Buffers 0 and 1 (steps 0 and 1) are joined into 2 (step 2), which is joined with 3 into 4.
  std::vector<BufferLifetime> buffers = {{10, 0, 2}, {20, 1, 2}, {30, 2, 4},
                                         {5, 3, 4},  {35, 4, 6}, {100, 0, 1}};
  std::vector<Placement> placements(buffers.size());
  placements[0] = {2, 0};
  placements[1] = {2, 10};
  placements[2] = {4, 0};
  placements[3] = {4, 30};
  const MemoryPlan plan = PlanMemoryWithGuests(buffers, placements, 16);
  EXPECT_EQ(plan.offsets[0], plan.offsets[4]);
  EXPECT_EQ(plan.offsets[1], plan.offsets[4] + 10);
  EXPECT_EQ(plan.offsets[2], plan.offsets[4]);
  EXPECT_EQ(plan.offsets[3], plan.offsets[4] + 30);
  // The outermost host is alive from step 0 (its guests' guest) on, so it never shares with
  // buffer 5, alive at steps 0 and 1.
  const std::vector<BufferLifetime> own = {{35, 0, 6}, {100, 0, 1}};
  EXPECT_TRUE(PlanIsSafe(own, MemoryPlan{{plan.offsets[4], plan.offsets[5]}, plan.arena_size, 0}));
  EXPECT_EQ(plan.separate_size, 16u + 32 + 32 + 16 + 48 + 112);
}

}  // namespace
}  // namespace lumen
