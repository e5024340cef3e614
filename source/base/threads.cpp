#include "base/threads.hpp"

#include <cblas.h>
#include <sched.h>

#include <thread>

#include "lumen/error.hpp"

namespace lumen {

int DefaultThreadCount() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0) return count;
  }
  const unsigned hardware = std::thread::hardware_concurrency();
  return hardware > 0 ? static_cast<int>(hardware) : 1;
}

std::string BlasDescription() {
  const int parallel_mode = openblas_get_parallel();
  const char* mode_name = parallel_mode == 0   ? "sequential"
                          : parallel_mode == 1 ? "pthreads"
                                               : "OpenMP";
  return Concat("OpenBLAS (", mode_name, ", core ", openblas_get_corename(), ", ",
                openblas_get_num_threads(), " threads)");
}

}  // namespace lumen
