// Calibration folders: .npy and .f32 samples in name order, other files skipped, and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "io/calibration_folder.hpp"
#include "io/npy_file.hpp"
#include "io/raw_file.hpp"
#include "lumen/error.hpp"
#include "support/error_of.hpp"
#include "support/test_files.hpp"

namespace lumen {
namespace {

using ::testing::HasSubstr;

// The message of the lumen::Error ReadCalibrationFolder throws ("" if none).
std::string FolderError(const std::string& folder, const Shape& shape) {
  return test_support::ErrorOf([&] { ReadCalibrationFolder(folder, shape); });
}

TEST(CalibrationFolder, ReadsNpyAndRawFilesInNameOrder) {
  const std::string folder = test_support::TestDirectory() + "samples/";
  std::filesystem::create_directories(folder);
  WriteFloatFile(folder + "b.f32", {1, 2, 3, 4, 5, 6});
  WriteNpyFile(folder + "a.npy", Tensor::FromRowMajor({6, 5, 4, 3, 2, 1}, {1, 2, 3}));
  WriteFloatFile(folder + "notes.txt", {0});  // skipped
  const std::vector<std::vector<Tensor>> samples = ReadCalibrationFolder(folder, {1, 2, 3});
  ASSERT_EQ(samples.size(), 2u);
  ASSERT_EQ(samples[0].size(), 1u);
  EXPECT_EQ(samples[0][0].ToRowMajor(), (std::vector<float>{6, 5, 4, 3, 2, 1}));
  EXPECT_EQ(samples[1][0].shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(samples[1][0].ToRowMajor(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(CalibrationFolder, NamesWhatIsWrong) {
  const std::string empty = test_support::TestDirectory() + "empty/";
  std::filesystem::create_directories(empty);
  EXPECT_THAT(FolderError(empty, {1, 2}), HasSubstr("no calibration file (.npy or .f32"));
  EXPECT_THAT(FolderError(empty + "missing", {1, 2}),
              HasSubstr("cannot list the calibration folder"));
  const std::string wrong = test_support::TestDirectory() + "wrong/";
  std::filesystem::create_directories(wrong);
  WriteNpyFile(wrong + "x.npy", Tensor::FromRowMajor({1, 2, 3}, {1, 3}));
  EXPECT_THAT(FolderError(wrong, {1, 2}), HasSubstr("x.npy: a calibration input of shape"));
  std::filesystem::remove(wrong + "x.npy");
  WriteFloatFile(wrong + "y.f32", {1, 2, 3});
  EXPECT_THAT(FolderError(wrong, {1, 2}), HasSubstr("y.f32"));
}

}  // namespace
}  // namespace lumen
