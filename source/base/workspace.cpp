#include "base/workspace.hpp"

#include <algorithm>

#include "base/checked_math.hpp"
#include "base/thread_pool.hpp"
#include "lumen/error.hpp"

namespace lumen {

Workspace::Workspace(int threads)
    : buffers_(static_cast<size_t>(std::max(threads, 1)), std::vector<std::vector<float>>(kSlots)) {
}

float* Workspace::Get(ScratchSlot slot, size_t count) {
  // LESSON 13 BEGIN: the calling worker's own buffer in this slot, grown if it is too small
  const size_t thread = static_cast<size_t>(ThreadPool::CurrentWorker());
  std::vector<float>& buffer = buffers_.at(thread)[static_cast<size_t>(slot)];
  if (buffer.size() < count) {
    buffer.resize(count);
    grew_.store(true, std::memory_order_relaxed);  // several workers may grow at once
  }
  return buffer.data();
  // LESSON 13 END
}

void Workspace::Reserve(ScratchSlot slot, size_t count) {
  if (limit_ > 0) {
    // Bytes after growing: every thread's buffer in `slot` at least `count` floats.
    size_t total = bytes();
    for (const auto& thread_buffers : buffers_) {
      const std::vector<float>& buffer = thread_buffers[static_cast<size_t>(slot)];
      if (buffer.size() >= count) continue;
      // The grown buffer replaces the old one.
      total -= buffer.capacity() * sizeof(float);
      total =
          CheckedAdd(total, CheckedMultiply(count, sizeof(float), "scratch size"), "scratch size");
    }
    if (total > limit_) {
      throw Error(Concat("needs ", total, " bytes of per-thread scratch (", buffers_.size(),
                         " thread(s)), more than the ", limit_,
                         " bytes the memory budget leaves after the operands and weights"));
    }
  }
  for (auto& thread_buffers : buffers_) {
    std::vector<float>& buffer = thread_buffers[static_cast<size_t>(slot)];
    if (buffer.size() < count) buffer.resize(count);
  }
}

void Workspace::ShareSizes() {
  if (!grew_.load(std::memory_order_relaxed)) return;
  grew_.store(false, std::memory_order_relaxed);
  for (int slot = 0; slot < kSlots; ++slot) {
    size_t largest = 0;
    for (const auto& thread_buffers : buffers_) {
      largest = std::max(largest, thread_buffers[static_cast<size_t>(slot)].size());
    }
    Reserve(static_cast<ScratchSlot>(slot), largest);
  }
}

size_t Workspace::bytes() const {
  size_t total = 0;
  for (const auto& thread_buffers : buffers_) {
    for (const auto& buffer : thread_buffers) total += buffer.capacity() * sizeof(float);
  }
  return total;
}

}  // namespace lumen
