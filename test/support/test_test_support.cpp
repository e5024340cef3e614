// The test helpers' own messages, which are what a failing test (and a course student) reads: a
// kernel and its reference that disagree are both named, tolerances print as written, and a case
// wrong in every output and on every thread count is reported once.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "io/golden_case.hpp"
#include "io/raw_file.hpp"
#include "support/float_text.hpp"
#include "support/kernel_testing.hpp"
#include "support/sequence_layer_cases.hpp"
#include "support/source_directory.hpp"

namespace lumen {
namespace test_support {
namespace {

TEST(TestSupport, FloatTextIsTheShortestFormThatReadsBackExactly) {
  EXPECT_EQ(FloatText(1e-5f), "1e-05");  // 9.9999997473787516e-06 exactly
  EXPECT_EQ(FloatText(1e-4f), "0.0001");
  EXPECT_EQ(FloatText(0.1f), "0.1");
  EXPECT_EQ(FloatText(-2.5f), "-2.5");
  EXPECT_EQ(FloatText(0.3f + 0.6f), "0.90000004");  // not 0.9: another float
  EXPECT_EQ(FloatText(16777217.0f), "16777216");
  EXPECT_EQ(FloatText(std::numeric_limits<float>::quiet_NaN()), "nan");
}

TEST(TestSupport, ExpectAgreeNamesBothResults) {
  EXPECT_NONFATAL_FAILURE(ExpectAgree({1.0f, 2.0f, 3.0f}, "im2col", {1.0f, 2.5f, 3.0f},
                                      "your reference", 1e-5f, 1e-4f, "k3x3"),
                          "k3x3: im2col and your reference disagree: 1 of 3 values outside atol "
                          "1e-05 rtol 0.0001; max abs error 0.5, first at index 1 (im2col 2, your "
                          "reference 2.5)");
}

// A copy of test/data/layers/`name` under a temporary folder, with 1 added to every value of every
// output of PyTorch's: a case that every run of Lumen gets wrong in every output.
std::string CaseWithEveryOutputWrong(const std::string& name) {
  const std::string copy = testing::TempDir() + "/lumen_test_support/" + name;
  std::filesystem::remove_all(copy);
  std::filesystem::create_directories(copy);
  std::filesystem::copy(SourceDirectory() + "/test/data/layers/" + name, copy);
  for (const GoldenCase::DataFile& output : ReadGoldenCase(copy).outputs) {
    std::vector<float> values = ReadFloatFile(output.path);
    for (float& value : values) value += 1.0f;
    WriteFloatFile(output.path, values);
  }
  return copy;
}

TEST(TestSupport, ACaseWrongInEveryOutputOnEveryThreadCountFailsOnce) {
  const std::string folder = CaseWithEveryOutputWrong("chunk_uneven");  // three outputs
  EXPECT_NONFATAL_FAILURE(ExpectCaseOnOneAndTwoThreads(folder),
                          "chunk_uneven output 0 (row-major): 36 of 36 values outside atol 1e-06 "
                          "rtol 1e-06; max abs error ");
  EXPECT_NONFATAL_FAILURE(ExpectCaseOnOneAndTwoThreads(folder),
                          "; output(s) 1, 2 differ from PyTorch's too");
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace test_support
}  // namespace lumen
