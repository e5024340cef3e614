// Forward must not touch the heap once it has run once: every operand, workspace and scratch
// buffer is allocated by Build or by the first run.
//
// This file is its own test program (lumen_no_allocation_test) because it replaces the C
// allocator: a program that defines malloc and friends receives the calls of every library it
// loads (libstdc++, OpenBLAS, libgomp) too, so the count covers all of them.
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>

#include "lumen/base/threads.hpp"
#include "lumen/io/golden_case.hpp"
#include "lumen/io/raw_file.hpp"
#include "lumen/runtime/runtime_graph.hpp"

extern "C" {
// glibc's own allocator, which ours forwards to.
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* pointer, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void __libc_free(void* pointer);
}

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
void Count() {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1);
}
}  // namespace

extern "C" {
void* malloc(size_t size) {
  Count();
  return __libc_malloc(size);
}
void* calloc(size_t count, size_t size) {
  Count();
  return __libc_calloc(count, size);
}
void* realloc(void* pointer, size_t size) {
  Count();
  return __libc_realloc(pointer, size);
}
void* memalign(size_t alignment, size_t size) {
  Count();
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(size_t alignment, size_t size) {
  Count();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** pointer, size_t alignment, size_t size) {
  Count();
  *pointer = __libc_memalign(alignment, size);
  return *pointer ? 0 : ENOMEM;
}
void free(void* pointer) { __libc_free(pointer); }
}

namespace lumen {
namespace {

// Runs a corpus model once to warm up, then counts heap allocations over `runs` more runs,
// through both the zero-copy Run and the copying Forward.
long AllocationsPerRun(const std::string& case_name, int threads, int runs) {
  SetNumThreads(threads);
  const GoldenCase golden =
      ReadGoldenCase(std::string(LUMEN_SOURCE_DIR) + "/tmp/models/" + case_name);
  RuntimeGraph graph(golden.param_path, golden.bin_path);
  graph.Build();
  std::vector<TensorBatch> inputs;
  for (const auto& input : golden.inputs) inputs.push_back(ReadBatchFile(input.path, input.shape));
  std::vector<TensorBatch> outputs;
  graph.Forward(inputs, &outputs);
  allocations = 0;
  counting = true;
  for (int run = 0; run < runs; ++run) {
    graph.Forward(inputs, &outputs);
    graph.Run();
  }
  counting = false;
  return allocations.load();
}

TEST(NoAllocation, CounterSeesAllocations) {
  // The counter itself must work, or the tests below would pass vacuously.
  allocations = 0;
  counting = true;
  std::vector<float>* vector = new std::vector<float>(1000);
  counting = false;
  delete vector;
  EXPECT_GE(allocations.load(), 2);
}

TEST(NoAllocation, ResNet18SingleThread) { EXPECT_EQ(AllocationsPerRun("resnet18", 1, 3), 0); }

TEST(NoAllocation, ResNet18TwoThreads) { EXPECT_EQ(AllocationsPerRun("resnet18", 2, 3), 0); }

TEST(NoAllocation, ResNet18Batch4) { EXPECT_EQ(AllocationsPerRun("resnet18_b4", 2, 2), 0); }

TEST(NoAllocation, YoloV5s) { EXPECT_EQ(AllocationsPerRun("yolov5s_detect", 2, 2), 0); }

}  // namespace
}  // namespace lumen
