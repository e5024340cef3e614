// Thread counts: the default a session uses when none is given, and what the BLAS does.
#ifndef LUMEN_BASE_THREADS_HPP_
#define LUMEN_BASE_THREADS_HPP_

#include <string>

namespace lumen {

// The number of cores this process may run on (its CPU affinity mask), at least 1: the default
// thread count of a session.
int DefaultThreadCount();

// Describes the BLAS linked in (library, threading model, core type), for logs and benchmarks.
std::string BlasDescription();

}  // namespace lumen

#endif  // LUMEN_BASE_THREADS_HPP_
