// ThreadPool: the threads one session computes on, and ParallelFor, the one way Lumen spreads a
// loop over them.
//
// Each session owns a pool of `threads - 1` workers; the thread that calls ParallelFor is the
// first of the team and works too. Work is handed out in chunks on demand (guided: big chunks
// first, smaller ones as the loop runs out), so the loop never waits for a thread that has not
// shown up: on a busy machine a descheduled worker simply takes no chunk, and the caller does
// its share. Only a chunk a worker has already taken is waited for. Idle workers spin briefly
// (the next loop of a network usually follows within microseconds), then yield, then sleep.
//
// The thread count is the pool's, given when the pool is made: nothing is read back from
// global or per-thread state, so a pool made in any thread uses exactly the count it was given.
//
// An exception thrown by a loop's body on any thread stops the hand-out of chunks, and the first
// one is rethrown to the caller once every thread has left the loop (an exception leaving a worker
// thread would end the process). Which other iterations ran is then unspecified.
#ifndef LUMEN_BASE_THREAD_POOL_HPP_
#define LUMEN_BASE_THREAD_POOL_HPP_

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace lumen {

// A non-owning reference to a callable taking (begin, end): cheap to pass, never allocates (a
// std::function may, and Forward must not).
class RangeFunction {
 public:
  // Refers to `function`, which must outlive this object.
  template <typename Function>
  RangeFunction(Function& function)  // NOLINT: implicit on purpose, like a function_ref
      : object_(&function), call_([](void* object, std::ptrdiff_t begin, std::ptrdiff_t end) {
          (*static_cast<Function*>(object))(begin, end);
        }) {}
  // Calls the function on [begin, end).
  void operator()(std::ptrdiff_t begin, std::ptrdiff_t end) const { call_(object_, begin, end); }

 private:
  void* object_;
  void (*call_)(void*, std::ptrdiff_t, std::ptrdiff_t);
};

// How iterations are handed out: in shrinking contiguous chunks (for iterations that cost the
// same: each thread reads one contiguous share while all are running), one at a time (for
// iterations whose costs differ a lot), or one per thread, iteration t to thread t of the team
// while it is there to take it (for loops of `threads` shares of a map: consecutive layers that
// split their maps alike then find each share in the cache of the core that wrote it).
enum class Schedule { kStatic, kDynamic, kByThread };

// A fixed team of threads for parallel loops (see the top of this file).
class ThreadPool {
 public:
  // A team of `threads` (at least 1): the calling thread plus threads - 1 workers started now.
  explicit ThreadPool(int threads);
  // Stops and joins the workers.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Size of the team, the caller included.
  int threads() const { return threads_; }

  // Calls body(begin, end) on chunks covering [0, count) exactly once, on the caller and the
  // workers, and returns when all are done. Called from inside a chunk (a nested loop), or on a
  // one-thread pool, it is a plain call of body(0, count) on the calling thread. Rethrows the first
  // exception a chunk threw, on any thread, after all are done.
  void Run(std::ptrdiff_t count, Schedule schedule, RangeFunction body);

  // 0 for the thread that called Run (and for any thread outside a pool), 1..threads-1 for the
  // workers: which per-thread scratch buffer a chunk may use.
  static int CurrentWorker();

  // True on a thread that is running a chunk of some pool's loop: a loop started there runs on
  // that thread alone.
  static bool InsideLoop();

 private:
  // The loop being run: written by Run before it opens the job, read by the threads in it.
  struct Job {
    RangeFunction* body = nullptr;
    std::ptrdiff_t count = 0;
    Schedule schedule = Schedule::kStatic;
    std::atomic<std::ptrdiff_t> next{0};  // first iteration no thread has taken yet
    std::atomic<uint64_t> taken{0};       // kByThread: bit i set once iteration i is taken
    std::atomic<bool> failed{false};      // a chunk threw: `error` holds the first exception
    std::exception_ptr error;             // written by that chunk's thread only, read by Run
  };

  // Takes the next chunk of the job; false when none is left.
  bool TakeChunk(std::ptrdiff_t* begin, std::ptrdiff_t* end);
  // kByThread: takes this thread's own iteration if it is still there, else the first one left
  // (its thread has not come yet: nobody waits for it); false when none is left.
  bool TakeOwnIteration(std::ptrdiff_t* iteration);
  // Runs chunks until none is left, or until one throws: then keeps the job's first exception
  // and hands out no further chunk.
  void WorkOnJob();
  // A worker's life: wait for a job, join it if it is still open, work, repeat.
  void WorkerLoop(int worker);

  int threads_;
  std::vector<std::thread> workers_;
  Job job_;
  // Bits 0-30: workers inside the current job; bit 31: the job is open (workers may join);
  // bits 32-63: the job's generation, incremented by every Run.
  std::atomic<uint64_t> state_{0};
  std::atomic<int> sleeping_{0};
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
};

// Runs body(i) for every i in [0, count) on `pool` (may be null: a plain loop). A plain loop also
// when `parallel` is false (too little work to be worth sharing) or count < 2.
template <typename Body>
void ParallelFor(ThreadPool* pool, std::ptrdiff_t count, Body&& body,
                 Schedule schedule = Schedule::kStatic, bool parallel = true) {
  if (pool == nullptr || !parallel || count < 2 || pool->threads() == 1) {
    for (std::ptrdiff_t i = 0; i < count; ++i) body(i);
    return;
  }
  auto range = [&body](std::ptrdiff_t begin, std::ptrdiff_t end) {
    for (std::ptrdiff_t i = begin; i < end; ++i) body(i);
  };
  pool->Run(count, schedule, RangeFunction(range));
}

// Runs body(first, last) over [0, runs) cut into tasks of whole runs, about 2^14 elements each
// (a run holds `run_length` elements): for loops whose rows are too short to be a task each
// (copies, padding, plain memory). Shared between threads only above 2^15 elements in all, where
// the work outweighs waking the workers.
template <typename Body>
void ParallelForRuns(ThreadPool* pool, size_t runs, size_t run_length, Body&& body) {
  constexpr size_t kTaskElements = size_t{1} << 14;
  constexpr size_t kParallelElements = size_t{1} << 15;
  const size_t runs_per_task = std::max<size_t>(1, kTaskElements / std::max<size_t>(1, run_length));
  const auto tasks = static_cast<std::ptrdiff_t>((runs + runs_per_task - 1) / runs_per_task);
  ParallelFor(
      pool, tasks,
      [&](std::ptrdiff_t task) {
        const size_t first = static_cast<size_t>(task) * runs_per_task;
        body(first, std::min(runs, first + runs_per_task));
      },
      Schedule::kStatic, runs * run_length >= kParallelElements);
}

}  // namespace lumen

#endif  // LUMEN_BASE_THREAD_POOL_HPP_
