#include "lumen/base/scratch.hpp"

#include <omp.h>

#include <atomic>
#include <vector>

#include "lumen/base/parallel.hpp"

namespace lumen {
namespace {

constexpr int kSlots = static_cast<int>(ScratchSlot::kCount);

// The largest request seen for each slot, and whether one arrived since ShareScratchSizes.
std::atomic<size_t> largest[kSlots];
std::atomic<bool> grew{false};

}  // namespace

float* ThreadScratch(ScratchSlot slot, size_t count) {
  static thread_local std::vector<float> buffers[kSlots];
  const int index = static_cast<int>(slot);
  std::vector<float>& buffer = buffers[index];
  if (buffer.size() < count) {
    buffer.resize(count);
    size_t known = largest[index].load();
    while (count > known && !largest[index].compare_exchange_weak(known, count)) {
    }
    grew = true;
  }
  return buffer.data();
}

void ShareScratchSizes() {
  if (!grew.exchange(false)) return;
  // A static schedule gives iteration i to thread i: every thread grows its own buffers.
  ParallelFor(omp_get_max_threads(), [](std::ptrdiff_t) {
    for (int slot = 0; slot < kSlots; ++slot) {
      ThreadScratch(static_cast<ScratchSlot>(slot), largest[slot].load());
    }
  });
  grew = false;
}

}  // namespace lumen
