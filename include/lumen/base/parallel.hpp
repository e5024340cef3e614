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

// How iterations are handed to threads: in shrinking contiguous chunks (for iterations that cost
// the same), or one at a time to whichever thread is free (for uneven ones).
//
// kStatic is OpenMP's "guided" schedule, not its "static" one: the first chunks are whole equal
// shares, but a thread that finishes early takes what is left of a thread that was held up. On a
// shared machine a thread is sometimes descheduled for a few milliseconds; with fixed shares the
// other thread then waits for it at every loop's end (ResNet18 on 2 threads: 10 ms quiet, up to
// 19 ms beside a low-priority busy process; with guided chunks, 10-10.5 ms in both cases).
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
#pragma omp parallel for schedule(guided)
    for (std::ptrdiff_t i = 0; i < count; ++i) body(i);
  }
}

}  // namespace lumen

#endif  // LUMEN_BASE_PARALLEL_HPP_
