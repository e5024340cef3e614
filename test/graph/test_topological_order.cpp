// OrderTopologically, the one Kahn's sort behind the ONNX reader's node order and the runtime's
// step order: every item after what it waits for, the lowest index first among the ready, an item
// that waits twice for the same producer counted twice, and what a cycle leaves stuck.
#include <gtest/gtest.h>

#include <vector>

#include "graph/topological_order.hpp"

namespace lumen {
namespace {

TEST(TopologicalOrder, KeepsAnOrderedListAsItIs) {
  const TopologicalOrder sorted = OrderTopologically({{}, {0}, {1}, {0, 2}});
  EXPECT_EQ(sorted.order, (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_TRUE(sorted.stuck.empty());
}

TEST(TopologicalOrder, PutsEveryItemAfterWhatItWaitsFor) {
  // 0 waits for 2, 2 for 3; 1 waits for nothing.
  const TopologicalOrder sorted = OrderTopologically({{2}, {}, {3}, {}});
  EXPECT_EQ(sorted.order, (std::vector<size_t>{1, 3, 2, 0}));
}

TEST(TopologicalOrder, TakesTheLowestIndexAmongTheReady) {
  // 2 is ready from the start and 1 only once 0 has run, yet 1 comes first (a FIFO queue of the
  // ready would give 0, 2, 1).
  const TopologicalOrder sorted = OrderTopologically({{}, {0}, {}});
  EXPECT_EQ(sorted.order, (std::vector<size_t>{0, 1, 2}));
}

TEST(TopologicalOrder, CountsEveryUseOfAProducer) {
  // Item 1 reads item 0 twice (x * x): it is ready once, after 0.
  const TopologicalOrder sorted = OrderTopologically({{}, {0, 0}});
  EXPECT_EQ(sorted.order, (std::vector<size_t>{0, 1}));
}

TEST(TopologicalOrder, ReportsWhatACycleLeavesStuck) {
  // 1 and 2 wait for each other; 3 waits behind them; 0 runs.
  const TopologicalOrder sorted = OrderTopologically({{}, {2}, {1}, {2}});
  EXPECT_EQ(sorted.order, std::vector<size_t>{0});
  EXPECT_EQ(sorted.stuck, (std::vector<size_t>{1, 2, 3}));
}

}  // namespace
}  // namespace lumen
