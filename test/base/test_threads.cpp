// Threads: a session computes on exactly the threads it was given; nothing else starts any.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "base/thread_pool.hpp"
#include "base/threads.hpp"

namespace lumen {
namespace {

// The number of threads of this process (Linux /proc/self/status).
int ProcessThreads() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  }
  return -1;
}

TEST(Threads, DefaultThreadCountIsPositive) { EXPECT_GE(DefaultThreadCount(), 1); }

TEST(Threads, APoolOfThreeStartsTwoWorkersAndNoMore) {
  const int before = ProcessThreads();
  {
    ThreadPool pool(3);
    std::vector<int> hits(1000, 0);
    ParallelFor(&pool, 1000, [&](std::ptrdiff_t i) { hits[i] += 1; });
    EXPECT_EQ(ProcessThreads(), before + 2);
    for (int hit : hits) ASSERT_EQ(hit, 1);
  }
  EXPECT_EQ(ProcessThreads(), before);
}

TEST(Threads, DescribesTheBlas) {
  EXPECT_NE(BlasDescription().find("OpenBLAS"), std::string::npos);
}

}  // namespace
}  // namespace lumen
