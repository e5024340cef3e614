// ThreadPool and Workspace: every iteration runs exactly once on any team size and schedule,
// nested loops run inline, pools in several threads do not interfere, an exception thrown in a
// loop reaches its caller, and each worker's scratch is its own.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/thread_pool.hpp"
#include "base/workspace.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

TEST(ThreadPool, RunsEveryIterationExactlyOnce) {
  for (int threads : {1, 2, 3, 5}) {
    ThreadPool pool(threads);
    for (std::ptrdiff_t count : {0, 1, 2, 3, 7, 64, 1000, 100003}) {
      for (Schedule schedule : {Schedule::kStatic, Schedule::kDynamic}) {
        std::vector<std::atomic<int>> hits(static_cast<size_t>(count));
        ParallelFor(
            &pool, count, [&](std::ptrdiff_t i) { hits[i].fetch_add(1); }, schedule);
        for (std::ptrdiff_t i = 0; i < count; ++i) {
          ASSERT_EQ(hits[i].load(), 1) << threads << " threads, count " << count << ", i " << i;
        }
      }
    }
  }
}

TEST(ThreadPool, ManyShortLoopsInARow) {
  // The join protocol of one loop must not leak into the next: thousands of tiny loops, as a
  // network's small layers make.
  ThreadPool pool(3);
  std::atomic<long> sum{0};
  for (int loop = 0; loop < 20000; ++loop) {
    ParallelFor(&pool, 3, [&](std::ptrdiff_t i) { sum.fetch_add(i + 1); });
  }
  EXPECT_EQ(sum.load(), 20000L * 6);
}

TEST(ThreadPool, NestedLoopsRunInlineOnTheCallingWorker) {
  ThreadPool pool(2);
  std::atomic<int> total{0};
  std::atomic<bool> nested_moved{false};
  ParallelFor(&pool, 8, [&](std::ptrdiff_t) {
    EXPECT_TRUE(ThreadPool::InsideLoop());
    const int worker = ThreadPool::CurrentWorker();
    ParallelFor(&pool, 8, [&](std::ptrdiff_t) {
      if (ThreadPool::CurrentWorker() != worker) nested_moved = true;
      total.fetch_add(1);
    });
  });
  EXPECT_EQ(total.load(), 64);
  EXPECT_FALSE(nested_moved.load());
  EXPECT_FALSE(ThreadPool::InsideLoop());
}

TEST(ThreadPool, WorkerIndicesStayInRange) {
  ThreadPool pool(3);
  std::vector<std::atomic<int>> seen(3);
  std::atomic<bool> caller_came{true};
  ParallelFor(&pool, 3000, [&](std::ptrdiff_t) {
    const int worker = ThreadPool::CurrentWorker();
    ASSERT_GE(worker, 0);
    ASSERT_LT(worker, 3);
    seen[worker].fetch_add(1);
    // Workers that ran all 3000 while the caller, descheduled right after opening the loop, had
    // not come back yet would leave it nothing (seen once under ThreadSanitizer on two busy
    // cores). So each waits for the caller's first iteration: a worker holds one chunk at a time,
    // which leaves the caller some, and what is checked is that it takes them, not its timing.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (seen[0].load() == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        caller_came = false;
        return;
      }
      std::this_thread::yield();
    }
  });
  EXPECT_TRUE(caller_came.load()) << "the caller took no chunk: it must work, not only wait";
  EXPECT_EQ(seen[0].load() + seen[1].load() + seen[2].load(), 3000);
}

TEST(ThreadPool, ByThreadRunsEachIterationOnceAndGivesThreadsTheirOwn) {
  ThreadPool pool(3);
  for (const int count : {1, 2, 3, 5, 64, 65, 200}) {
    std::vector<std::atomic<int>> runs(count);
    ParallelFor(
        &pool, count, [&](std::ptrdiff_t i) { runs[i].fetch_add(1); }, Schedule::kByThread);
    for (int i = 0; i < count; ++i)
      EXPECT_EQ(runs[i].load(), 1) << "iteration " << i << " of " << count;
  }
  // Iteration t goes to thread t whenever thread t is there: each iteration waits until every
  // thread of the team has taken one, so none can take a second before the others have come.
  int own = 0;
  for (int loop = 0; loop < 20; ++loop) {
    std::atomic<int> started{0};
    std::vector<int> thread_of(3, -1);
    ParallelFor(
        &pool, 3,
        [&](std::ptrdiff_t i) {
          thread_of[i] = ThreadPool::CurrentWorker();
          started.fetch_add(1);
          const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
          while (started.load() < 3 && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::yield();
          }
        },
        Schedule::kByThread);
    own += thread_of == std::vector<int>{0, 1, 2};
  }
  // A worker that is descheduled while the loop opens leaves its iteration to another thread
  // (nobody waits for it), so most loops, not all, keep the mapping on a busy machine.
  EXPECT_GE(own, 10);
}

TEST(ThreadPool, ByThreadWithoutAWorkerLeavesItsIterationToTheOthers) {
  // A loop of more iterations than threads: the ones no thread owns are taken all the same.
  ThreadPool pool(2);
  std::vector<std::atomic<int>> runs(7);
  ParallelFor(
      &pool, 7, [&](std::ptrdiff_t i) { runs[i].fetch_add(1); }, Schedule::kByThread);
  for (auto& run : runs) EXPECT_EQ(run.load(), 1);
}

TEST(ThreadPool, PoolsInSeveralThreadsRunAtOnce) {
  // One pool per session, sessions in their own threads: no shared state between pools.
  std::vector<long> sums(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      ThreadPool pool(2);
      for (int loop = 0; loop < 500; ++loop) {
        std::atomic<long> sum{0};
        ParallelFor(&pool, 100, [&](std::ptrdiff_t i) { sum.fetch_add(i); });
        sums[t] += sum.load();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (long sum : sums) EXPECT_EQ(sum, 500L * 4950);
}

// A body that throws (a layer refusing its input, a course's TODO stub) must not end the process
// from a worker thread: ParallelFor rethrows the exception on the caller, once every thread has
// left the loop, and the pool runs the next loop as before.
TEST(ThreadPool, RethrowsAWorkersExceptionOnTheCaller) {
  ThreadPool pool(2);
  std::atomic<bool> worker_threw{false};
  // The caller's iterations wait (a few seconds at most) for the worker to take one and throw.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::string message;
  try {
    ParallelFor(
        &pool, 64,
        [&](std::ptrdiff_t) {
          if (ThreadPool::CurrentWorker() != 0) {
            worker_threw = true;
            throw Error("thrown on a worker");
          }
          while (!worker_threw && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::yield();
          }
        },
        Schedule::kDynamic);
  } catch (const Error& error) {
    message = error.what();
  }
  ASSERT_TRUE(worker_threw) << "the worker took no iteration in 10 s";
  EXPECT_EQ(message, "thrown on a worker");
  std::atomic<int> sum{0};
  ParallelFor(&pool, 100, [&](std::ptrdiff_t i) { sum.fetch_add(static_cast<int>(i)); });
  EXPECT_EQ(sum.load(), 4950);
}

TEST(ThreadPool, RethrowsOneExceptionWhenEveryThreadThrows) {
  for (int threads : {2, 3, 5}) {
    ThreadPool pool(threads);
    for (Schedule schedule : {Schedule::kStatic, Schedule::kDynamic, Schedule::kByThread}) {
      for (int count : {1000, threads}) {
        EXPECT_THROW(ParallelFor(
                         &pool, count,
                         [](std::ptrdiff_t) { throw Error("every iteration throws"); }, schedule),
                     Error)
            << threads << " threads";
      }
      std::vector<std::atomic<int>> hits(100);
      ParallelFor(
          &pool, 100, [&](std::ptrdiff_t i) { hits[i].fetch_add(1); }, schedule);
      for (std::atomic<int>& hit : hits) ASSERT_EQ(hit.load(), 1) << threads << " threads";
    }
  }
}

TEST(Workspace, GivesEachWorkerItsOwnBuffer) {
  ThreadPool pool(3);
  Workspace workspace(3);
  workspace.Reserve(ScratchSlot::kFirst, 256);
  std::vector<float*> buffers(3, nullptr);
  std::atomic<bool> clash{false};
  ParallelFor(&pool, 300, [&](std::ptrdiff_t i) {
    float* buffer = workspace.Get(ScratchSlot::kFirst, 256);
    const int worker = ThreadPool::CurrentWorker();
    if (buffers[worker] != nullptr && buffers[worker] != buffer) clash = true;
    buffers[worker] = buffer;
    for (int k = 0; k < 256; ++k) buffer[k] = static_cast<float>(i);
    for (int k = 0; k < 256; ++k) {
      if (buffer[k] != static_cast<float>(i)) clash = true;  // another thread wrote here
    }
  });
  EXPECT_FALSE(clash.load());
  std::set<float*> distinct;
  for (float* buffer : buffers) {
    if (buffer != nullptr) distinct.insert(buffer);
  }
  for (float* buffer : distinct) EXPECT_NE(buffer, nullptr);
  EXPECT_GE(workspace.bytes(), 3u * 256 * sizeof(float));
}

TEST(Workspace, ShareSizesGrowsEveryThreadToTheLargest) {
  Workspace workspace(2);
  workspace.Get(ScratchSlot::kSecond, 1000);  // thread 0 (the caller) grows its buffer
  const size_t before = workspace.bytes();
  workspace.ShareSizes();
  EXPECT_GE(workspace.bytes(), before + 1000 * sizeof(float));
}

}  // namespace
}  // namespace lumen
