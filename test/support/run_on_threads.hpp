// RunOnThreads: a test's work on several std::threads at once, with exceptions brought back to
// the test's own thread.
#ifndef LUMEN_TEST_SUPPORT_RUN_ON_THREADS_HPP_
#define LUMEN_TEST_SUPPORT_RUN_ON_THREADS_HPP_

#include <exception>
#include <thread>
#include <vector>

namespace lumen {
namespace test_support {

// Runs body(0), ..., body(count - 1) on `count` threads at once and joins them. An exception
// leaving a std::thread ends the process (two at once print only "terminate called
// recursively"), so each thread's exception is caught, and the first is rethrown here once all
// are joined: the test then fails with its message (a course's TODO stub is named).
template <typename Body>
void RunOnThreads(int count, const Body& body) {
  std::vector<std::exception_ptr> errors(static_cast<size_t>(count));
  std::vector<std::thread> threads;
  for (int index = 0; index < count; ++index) {
    threads.emplace_back([&body, &errors, index] {
      try {
        body(index);
      } catch (...) {
        errors[static_cast<size_t>(index)] = std::current_exception();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace test_support
}  // namespace lumen

#endif  // LUMEN_TEST_SUPPORT_RUN_ON_THREADS_HPP_
