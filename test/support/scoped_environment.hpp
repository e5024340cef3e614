// An environment variable set for one test's scope: the library reads a few (LUMEN_ISA,
// LUMEN_QUANTIZED_KERNELS, LUMEN_BF16_PRODUCTS) to force a kernel a CPU would not choose.
#ifndef LUMEN_TEST_SUPPORT_SCOPED_ENVIRONMENT_HPP_
#define LUMEN_TEST_SUPPORT_SCOPED_ENVIRONMENT_HPP_

#include <cstdlib>

namespace lumen {
namespace test_support {

// Sets an environment variable for its lifetime (unset again after).
class ScopedEnvironment {
 public:
  // Sets `name` to `value`, or leaves it unset when `value` is null.
  ScopedEnvironment(const char* name, const char* value) : name_(name) {
    if (value != nullptr) setenv(name, value, 1);
  }
  ~ScopedEnvironment() { unsetenv(name_); }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  const char* name_;
};

}  // namespace test_support
}  // namespace lumen

#endif  // LUMEN_TEST_SUPPORT_SCOPED_ENVIRONMENT_HPP_
