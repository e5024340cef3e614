// ParallelFor: the one way Lumen spreads a loop over threads.
//
// Every parallel loop in the library goes through here, so that SetNumThreads (threads.hpp) is the
// single knob. With one thread it runs a plain loop without entering OpenMP at all: libgomp
// allocates a fresh team for every one-thread parallel region, and Forward must not allocate.
#ifndef LUMEN_BASE_PARALLEL_HPP_
#define LUMEN_BASE_PARALLEL_HPP_

#include <omp.h>

#include <cstddef>

namespace lumen {

// How iterations are handed to threads: equal contiguous shares (for iterations that cost the
// same), or one at a time to whichever thread is free (for uneven ones).
enum class Schedule { kStatic, kDynamic };

// Runs body(i) for every i in [0, count) on the OpenMP threads. It is a plain loop on the calling
// thread when there is one thread, when called from inside another parallel loop (the inner loop of
// a task that is already parallel), or when `parallel` is false (too little work to share).
template <typename Body>
void ParallelFor(std::ptrdiff_t count, Body&& body, Schedule schedule = Schedule::kStatic,
                 bool parallel = true) {
  if (!parallel || count < 2 || omp_get_max_threads() == 1 || omp_in_parallel()) {
    for (std::ptrdiff_t i = 0; i < count; ++i) body(i);
    return;
  }
  if (schedule == Schedule::kDynamic) {
#pragma omp parallel for schedule(dynamic, 1)
    for (std::ptrdiff_t i = 0; i < count; ++i) body(i);
  } else {
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < count; ++i) body(i);
  }
}

}  // namespace lumen

#endif  // LUMEN_BASE_PARALLEL_HPP_
