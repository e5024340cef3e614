#include "lumen/base/workspace.hpp"

#include <algorithm>

#include "lumen/base/thread_pool.hpp"

namespace lumen {

Workspace::Workspace(int threads)
    : buffers_(static_cast<size_t>(std::max(threads, 1)), std::vector<std::vector<float>>(kSlots)) {}

float* Workspace::Get(ScratchSlot slot, size_t count) {
  // LESSON 13 BEGIN: the calling worker's own buffer in this slot, grown if it is too small
  const size_t thread = static_cast<size_t>(ThreadPool::CurrentWorker());
  std::vector<float>& buffer = buffers_.at(thread)[static_cast<size_t>(slot)];
  if (buffer.size() < count) {
    buffer.resize(count);
    grew_ = true;  // a benign race: any thread that grows sets it, and ShareSizes reads it alone
  }
  return buffer.data();
  // LESSON 13 END
}

void Workspace::Reserve(ScratchSlot slot, size_t count) {
  for (auto& thread_buffers : buffers_) {
    std::vector<float>& buffer = thread_buffers[static_cast<size_t>(slot)];
    if (buffer.size() < count) buffer.resize(count);
  }
}

void Workspace::ShareSizes() {
  if (!grew_) return;
  grew_ = false;
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
