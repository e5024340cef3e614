// Workspace: the scratch memory of one session's threads, allocated when a session plans its
// shapes (or grown on first use), then reused by every run.
//
// Kernels that work on one block of data at a time (a slice of the im2col matrix, a block of
// Winograd tiles, a packed slice of a GEMM operand) need a private buffer per thread. Sharing these
// buffers between all the layers of a session, instead of giving each layer its own, keeps them
// few; keeping them in the session, instead of in thread-local storage, lets sessions on other
// threads run at the same time without touching each other's memory.
#ifndef LUMEN_BASE_WORKSPACE_HPP_
#define LUMEN_BASE_WORKSPACE_HPP_

#include <atomic>
#include <cstddef>
#include <vector>

namespace lumen {

// Which of a thread's scratch buffers; a kernel uses different slots for buffers alive together.
enum class ScratchSlot { kGemmPacking, kFirst, kSecond, kThird, kCount };

// Per-thread scratch buffers for the `threads` threads of one pool.
class Workspace {
 public:
  // Empty buffers for threads 0..threads-1.
  explicit Workspace(int threads);

  // A buffer of at least `count` floats for the calling thread of the pool (see
  // ThreadPool::CurrentWorker); contents unspecified. Grows it if needed, which allocates: sessions
  // reserve every size a run needs when they plan, so runs do not.
  float* Get(ScratchSlot slot, size_t count);

  // Makes every thread's buffer in `slot` hold at least `count` floats. Throws lumen::Error,
  // before allocating, when every buffer together would exceed the limit (see set_limit).
  void Reserve(ScratchSlot slot, size_t count);
  // The most bytes Reserve may make the buffers hold in all (a session's memory budget minus
  // its operands and weights); 0: no limit.
  void set_limit(size_t bytes) { limit_ = bytes; }

  // Grows every thread's buffers to the largest size any thread has used, if some thread grew
  // one since the last call: which thread takes which chunk changes from run to run.
  void ShareSizes();

  // Bytes held by every buffer of every thread.
  size_t bytes() const;

 private:
  static constexpr int kSlots = static_cast<int>(ScratchSlot::kCount);
  std::vector<std::vector<std::vector<float>>> buffers_;  // [thread][slot]
  // Set by every worker that grows one of its buffers, several at once in one loop: a plain bool
  // written so would be a data race (undefined behaviour, and ThreadSanitizer reports it). Relaxed
  // order is enough: ShareSizes reads it when no loop runs, after the pool's end-of-loop handshake
  // has ordered the workers' writes before it; a relaxed store is a plain store on x86 and ARM.
  std::atomic<bool> grew_{false};
  size_t limit_ = 0;
};

}  // namespace lumen

#endif  // LUMEN_BASE_WORKSPACE_HPP_
