// Workspace under a pool whose workers are all busy at once: each worker index has a buffer of
// its own (course lesson 13). A rendezvous makes every worker hold its buffer at the same time,
// so a buffer shared between workers (a data race in every kernel that uses scratch) is caught
// every time, not only when the threads happen to collide.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include "base/thread_pool.hpp"
#include "base/workspace.hpp"

namespace lumen {
namespace {

TEST(Workspace, WorkersBusyTogetherHoldDistinctBuffers) {
  constexpr int kThreads = 3;
  ThreadPool pool(kThreads);
  Workspace workspace(kThreads);
  workspace.Reserve(ScratchSlot::kFirst, 64);
  std::vector<float*> buffers(kThreads, nullptr);
  std::atomic<int> arrived{0};
  std::atomic<bool> everyone_came{true};
  // One iteration per worker, each waiting for the others: no worker can take a second one, so
  // the three iterations run on three different workers, all inside the loop together.
  ParallelFor(
      &pool, kThreads,
      [&](std::ptrdiff_t) {
        float* buffer = workspace.Get(ScratchSlot::kFirst, 64);
        buffers[static_cast<size_t>(ThreadPool::CurrentWorker())] = buffer;
        arrived.fetch_add(1);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (arrived.load() < kThreads) {
          if (std::chrono::steady_clock::now() > deadline) {
            everyone_came = false;
            return;
          }
          std::this_thread::yield();
        }
      },
      Schedule::kDynamic);
  ASSERT_TRUE(everyone_came.load()) << "the pool's workers did not all join the loop";
  const std::set<float*> distinct(buffers.begin(), buffers.end());
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kThreads))
      << "workers busy at the same time share a scratch buffer";
  EXPECT_EQ(distinct.count(nullptr), 0u);
}

TEST(Workspace, ABufferGrownDuringARunIsSharedWithEveryThreadAfterIt) {
  // A run that grows one thread's buffer must be followed by ShareSizes growing them all, so
  // that the next run, whichever thread takes the big chunk, allocates nothing.
  Workspace workspace(3);
  workspace.Get(ScratchSlot::kThird, 10);
  workspace.ShareSizes();
  const size_t small = workspace.bytes();
  workspace.Get(ScratchSlot::kThird, 5000);  // grows the caller's (worker 0's) buffer
  workspace.ShareSizes();
  EXPECT_GE(workspace.bytes(), small + 3 * (5000 - 10) * sizeof(float));
}

}  // namespace
}  // namespace lumen
