// The thread knob: one setting must govern both OpenMP and OpenBLAS.
#include <cblas.h>
#include <gtest/gtest.h>
#include <omp.h>

#include "lumen/base/error.hpp"
#include "lumen/base/threads.hpp"

namespace lumen {
namespace {

TEST(Threads, LinksTheOpenMPBuildOfOpenBLAS) {
  // 2 = OpenMP: GEMMs then run on OpenMP's pool and go single-threaded inside our parallel
  // regions. The pthreads build (1) would keep its own pool and oversubscribe the cores.
  EXPECT_EQ(openblas_get_parallel(), 2) << BlasDescription();
}

TEST(Threads, OneKnobSetsOpenMPAndOpenBLAS) {
  const int original = GetNumThreads();
  SetNumThreads(1);
  EXPECT_EQ(omp_get_max_threads(), 1);
  EXPECT_EQ(openblas_get_num_threads(), 1);
  SetNumThreads(2);
  EXPECT_EQ(omp_get_max_threads(), 2);
  EXPECT_EQ(openblas_get_num_threads(), 2);
  SetNumThreads(original);
}

TEST(Threads, RejectsZeroThreads) { EXPECT_THROW(SetNumThreads(0), Error); }

}  // namespace
}  // namespace lumen
