#include "base/thread_pool.hpp"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <utility>

#include "lumen/error.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define LUMEN_PAUSE() _mm_pause()
#else
#define LUMEN_PAUSE() ((void)0)
#endif

namespace lumen {
namespace {

constexpr uint64_t kInsideMask = (uint64_t{1} << 31) - 1;
constexpr uint64_t kOpenBit = uint64_t{1} << 31;
constexpr int kGenerationShift = 32;

// How long an idle worker polls before it sleeps. A network's loops follow each other within
// microseconds, and waking a sleeping thread costs a system call on each side, so a worker first
// spins (pause instructions), then yields its core to anyone who wants it, then sleeps.
constexpr std::chrono::microseconds kSpinTime{20};
constexpr std::chrono::microseconds kYieldTime{300};

// Which thread of its pool this thread is, and whether it is inside a job right now.
thread_local int current_worker = 0;
thread_local bool inside_job = false;

uint32_t GenerationOf(uint64_t state) { return static_cast<uint32_t>(state >> kGenerationShift); }

}  // namespace

ThreadPool::ThreadPool(int threads) : threads_(threads) {
  if (threads < 1) throw Error(Concat("thread count must be at least 1, got ", threads));
  workers_.reserve(static_cast<size_t>(threads - 1));
  for (int worker = 1; worker < threads; ++worker) {
    workers_.emplace_back([this, worker] { WorkerLoop(worker); });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

int ThreadPool::CurrentWorker() { return current_worker; }

bool ThreadPool::InsideLoop() { return inside_job; }

bool ThreadPool::TakeChunk(std::ptrdiff_t* begin, std::ptrdiff_t* end) {
  // LESSON 13 BEGIN: claim the next chunk of iterations atomically (compare-exchange on next)
  std::ptrdiff_t first = job_.next.load(std::memory_order_relaxed);
  std::ptrdiff_t size = 1;
  do {
    if (first >= job_.count) return false;
    // Guided: a share of what is left, so early chunks are large (few hand-outs, contiguous
    // memory per thread) and the last ones small (a late thread still finds work to take over).
    size = job_.schedule == Schedule::kDynamic
               ? 1
               : std::max<std::ptrdiff_t>(1, (job_.count - first) / threads_);
  } while (!job_.next.compare_exchange_weak(first, first + size, std::memory_order_relaxed));
  *begin = first;
  *end = first + size;
  return true;
  // LESSON 13 END
}

bool ThreadPool::TakeOwnIteration(std::ptrdiff_t* iteration) {
  const uint64_t all = job_.count >= 64 ? ~uint64_t{0} : (uint64_t{1} << job_.count) - 1;
  uint64_t taken = job_.taken.load(std::memory_order_relaxed);
  while ((taken & all) != all) {
    // This thread's own iteration first, else the lowest one left (the lowest clear bit, below
    // `count` since the bits above it stay clear).
    const uint64_t own = current_worker < job_.count ? uint64_t{1} << current_worker : 0;
    const uint64_t wanted = (taken & own) == 0 && own != 0 ? own : ~taken & (taken + 1);
    if (job_.taken.compare_exchange_weak(taken, taken | wanted, std::memory_order_relaxed)) {
      *iteration = __builtin_ctzll(wanted);
      return true;
    }
  }
  return false;
}

void ThreadPool::WorkOnJob() {
  const bool was_inside = inside_job;
  inside_job = true;
  std::ptrdiff_t begin = 0;
  std::ptrdiff_t end = 0;
  try {
    if (job_.schedule == Schedule::kByThread) {
      while (TakeOwnIteration(&begin)) (*job_.body)(begin, begin + 1);
    } else {
      while (TakeChunk(&begin, &end)) (*job_.body)(begin, end);
    }
  } catch (...) {
    // Leaving a worker thread, the exception would end the process: the first one is kept for
    // Run to rethrow on the caller, and the other threads take no new chunk.
    if (!job_.failed.exchange(true, std::memory_order_relaxed)) {
      job_.error = std::current_exception();
    }
    job_.next.store(job_.count, std::memory_order_relaxed);  // no chunk for anyone from now on
    job_.taken.store(~uint64_t{0}, std::memory_order_relaxed);
  }
  inside_job = was_inside;
}

void ThreadPool::Run(std::ptrdiff_t count, Schedule schedule, RangeFunction body) {
  if (count <= 0) return;
  if (threads_ == 1 || inside_job) {
    body(0, count);
    return;
  }
  job_.body = &body;
  job_.count = count;
  // Iterations past 64 have no bit of their own: such a loop is handed out in chunks.
  job_.schedule = schedule == Schedule::kByThread && count > 64 ? Schedule::kStatic : schedule;
  job_.next.store(0, std::memory_order_relaxed);
  job_.taken.store(0, std::memory_order_relaxed);
  job_.failed.store(false, std::memory_order_relaxed);
  // Open the job under a new generation; the release makes the fields above visible to every
  // worker that sees the new state.
  const uint64_t generation = GenerationOf(state_.load(std::memory_order_relaxed)) + 1;
  state_.store((generation << kGenerationShift) | kOpenBit, std::memory_order_seq_cst);
  if (sleeping_.load(std::memory_order_seq_cst) > 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    wake_.notify_all();
  }
  const int saved_worker = current_worker;
  current_worker = 0;
  WorkOnJob();
  current_worker = saved_worker;
  // No chunk is left: close the job so that late workers stay out, then wait for those inside,
  // who are finishing chunks they took.
  state_.fetch_and(~kOpenBit, std::memory_order_acq_rel);
  int spins = 0;
  while ((state_.load(std::memory_order_acquire) & kInsideMask) != 0) {
    if (++spins < 4096) {
      LUMEN_PAUSE();
    } else {
      sched_yield();
    }
  }
  // Every thread has left the job (the acquire above sees what they wrote): hand its exception
  // to the caller.
  if (job_.error) std::rethrow_exception(std::exchange(job_.error, nullptr));
}

void ThreadPool::WorkerLoop(int worker) {
  current_worker = worker;
  using Clock = std::chrono::steady_clock;
  uint32_t seen_generation = 0;
  auto idle_since = Clock::now();
  int polls = 0;
  while (!stopping_.load(std::memory_order_relaxed)) {
    uint64_t state = state_.load(std::memory_order_acquire);
    if (GenerationOf(state) != seen_generation) {
      seen_generation = GenerationOf(state);
      // Join only while the job is open and still the one we saw.
      while ((state & kOpenBit) != 0 && GenerationOf(state) == seen_generation) {
        if (state_.compare_exchange_weak(state, state + 1, std::memory_order_acq_rel)) {
          WorkOnJob();
          state_.fetch_sub(1, std::memory_order_acq_rel);
          break;
        }
      }
      idle_since = Clock::now();
      polls = 0;
      continue;
    }
    // Idle: spin, then yield, then sleep until the next job.
    if (++polls % 64 != 0) {
      LUMEN_PAUSE();
      continue;
    }
    const auto idle = Clock::now() - idle_since;
    if (idle < kSpinTime) continue;
    if (idle < kYieldTime) {
      sched_yield();
      continue;
    }
    std::unique_lock<std::mutex> lock(mutex_);
    sleeping_.fetch_add(1, std::memory_order_seq_cst);
    wake_.wait(lock, [&] {
      return stopping_.load(std::memory_order_relaxed) ||
             GenerationOf(state_.load(std::memory_order_seq_cst)) != seen_generation;
    });
    sleeping_.fetch_sub(1, std::memory_order_seq_cst);
    idle_since = Clock::now();
    polls = 0;
  }
}

}  // namespace lumen
