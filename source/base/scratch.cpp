#include "lumen/base/scratch.hpp"

#include <vector>

namespace lumen {

float* ThreadScratch(ScratchSlot slot, size_t count) {
  static thread_local std::vector<float> buffers[static_cast<int>(ScratchSlot::kCount)];
  std::vector<float>& buffer = buffers[static_cast<int>(slot)];
  if (buffer.size() < count) buffer.resize(count);
  return buffer.data();
}

}  // namespace lumen
