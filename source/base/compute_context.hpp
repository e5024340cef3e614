// ComputeContext: what a kernel receives from the session that runs it, and nothing more: the
// threads to spread its loops on and the scratch memory of those threads.
#ifndef LUMEN_BASE_COMPUTE_CONTEXT_HPP_
#define LUMEN_BASE_COMPUTE_CONTEXT_HPP_

#include <cstddef>

#include "base/thread_pool.hpp"
#include "base/workspace.hpp"

namespace lumen {

// The session's threads and scratch, passed explicitly to every kernel (never read from globals).
struct ComputeContext {
  ThreadPool* pool = nullptr;      // null: run on the calling thread only
  Workspace* workspace = nullptr;  // must be set for kernels that use scratch

  // Threads a loop started here would run on (1 inside another loop's chunk).
  int threads() const { return pool == nullptr || ThreadPool::InsideLoop() ? 1 : pool->threads(); }
  // The calling thread's scratch buffer in `slot`, at least `count` floats.
  float* Scratch(ScratchSlot slot, size_t count) const { return workspace->Get(slot, count); }
};

}  // namespace lumen

#endif  // LUMEN_BASE_COMPUTE_CONTEXT_HPP_
