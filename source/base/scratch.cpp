#include "lumen/base/scratch.hpp"

#include <omp.h>

#include <atomic>
#include <vector>

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
  const auto grow_own_buffers = [] {
    for (int slot = 0; slot < kSlots; ++slot) {
      ThreadScratch(static_cast<ScratchSlot>(slot), largest[slot].load());
    }
  };
  // Not a loop but one job for every thread of the team, each on its own buffers: a plain
  // parallel region, since a loop schedule may hand all iterations to one thread.
  if (omp_get_max_threads() == 1 || omp_in_parallel()) {
    grow_own_buffers();
  } else {
#pragma omp parallel
    grow_own_buffers();
  }
  grew = false;
}

}  // namespace lumen
