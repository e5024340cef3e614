// Files a test writes for itself: each test gets a directory of its own.
#ifndef LUMEN_TEST_SUPPORT_TEST_FILES_HPP_
#define LUMEN_TEST_SUPPORT_TEST_FILES_HPP_

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace lumen {
namespace test_support {

// A directory of the running test's own (ctest runs tests as parallel processes, so files in
// the shared temporary directory would be overwritten by a neighbour halfway through a test).
inline std::string TestDirectory() {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string directory =
      ::testing::TempDir() + "lumen_" + test->test_suite_name() + "." + test->name() + "/";
  std::filesystem::create_directories(directory);
  return directory;
}

// Writes bytes to a file in the test's own directory and returns its path.
inline std::string WriteFile(const std::string& name, const std::string& bytes) {
  const std::string path = TestDirectory() + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

}  // namespace test_support
}  // namespace lumen

#endif  // LUMEN_TEST_SUPPORT_TEST_FILES_HPP_
