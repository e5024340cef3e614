#include "lumen/base/threads.hpp"

#include <cblas.h>
#include <omp.h>

#include "lumen/base/error.hpp"

namespace lumen {

void SetNumThreads(int thread_count) {
  if (thread_count < 1) {
    throw Error(Concat("thread count must be at least 1, got ", thread_count));
  }
  // Lumen links the OpenMP build of OpenBLAS: its GEMM runs on the same OpenMP thread pool as our
  // own loops, and a GEMM called from inside a parallel region runs single-threaded, so the two
  // can never oversubscribe the cores. Both counts are set so that each agrees with the knob.
  omp_set_num_threads(thread_count);
  openblas_set_num_threads(thread_count);
}

int GetNumThreads() { return omp_get_max_threads(); }

std::string BlasDescription() {
  const int parallel_mode = openblas_get_parallel();
  const char* mode_name = parallel_mode == 0   ? "sequential"
                          : parallel_mode == 1 ? "pthreads"
                                               : "OpenMP";
  return Concat("OpenBLAS (", mode_name, ", core ", openblas_get_corename(), ", ",
                openblas_get_num_threads(), " threads)");
}

}  // namespace lumen
