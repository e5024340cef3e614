// Golden cases: reading case.txt and comparing outputs the way PyTorch's allclose does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "io/golden_case.hpp"
#include "io/raw_file.hpp"
#include "lumen/error.hpp"
#include "support/source_directory.hpp"
#include "support/test_files.hpp"

namespace lumen {
namespace {

using ::testing::HasSubstr;

const std::string kModels = lumen::test_support::SourceDirectory() + "/tmp/models/";

TEST(GoldenCase, ReadsACaseWithASharedBin) {
  const GoldenCase golden = ReadGoldenCase(kModels + "resnet18_b4");
  EXPECT_EQ(golden.name, "resnet18_b4");
  EXPECT_EQ(golden.bin_path, kModels + "resnet18_b4/../resnet18/model.pnnx.bin");
  ASSERT_EQ(golden.inputs.size(), 1u);
  EXPECT_EQ(golden.inputs[0].shape, (Shape{4, 3, 224, 224}));
  EXPECT_EQ(golden.outputs[0].shape, (Shape{4, 1000}));
  EXPECT_FLOAT_EQ(golden.absolute_tolerance, 1e-4f);
  EXPECT_FALSE(golden.note.empty());
}

TEST(GoldenCase, RejectsAMalformedCaseFile) {
  const std::string directory = test_support::TestDirectory() + "bad_case";
  std::filesystem::create_directories(directory);
  std::ofstream(directory + "/case.txt") << "input in0.f32 1,3,x\n";
  try {
    ReadGoldenCase(directory);
    FAIL();
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr(directory + "/case.txt:1: bad shape '1,3,x'"));
  }
  std::ofstream(directory + "/case.txt") << "input in0.f32 1,3\nshape 1\n";
  EXPECT_THROW(ReadGoldenCase(directory), Error);
}

// A model pnnx folded into constants takes none of the inputs its module was traced with: the
// case's inputs are dropped for it, and kept for a model that takes inputs.
TEST(GoldenCase, DropsTheInputsOfAModelWithoutInputs) {
  GoldenCase golden =
      ReadGoldenCase(lumen::test_support::SourceDirectory() + "/tmp/pnnx_ops/Tensor_new_ones");
  ASSERT_EQ(golden.inputs.size(), 1u);
  EXPECT_FALSE(DropInputsOfInputlessModel(1, &golden));
  EXPECT_EQ(golden.inputs.size(), 1u);
  EXPECT_TRUE(DropInputsOfInputlessModel(0, &golden));
  EXPECT_TRUE(golden.inputs.empty());
  EXPECT_EQ(golden.outputs.size(), 5u);
}

// "()" is a rank-0 tensor (one value, as x.sum() returns); lists may be parenthesised; an empty
// list, a zero or a trailing comma is not a shape.
TEST(GoldenCase, ParsesShapesIncludingRankZero) {
  EXPECT_EQ(ParseShapeText("()", "here"), Shape{});
  EXPECT_EQ(ParseShapeText("13", "here"), Shape{13});
  EXPECT_EQ(ParseShapeText("1,3,224,224", "here"), (Shape{1, 3, 224, 224}));
  EXPECT_EQ(ParseShapeText("(2,5)", "here"), (Shape{2, 5}));
  for (const char* bad : {"", "0", "1,", ",1", "(1,2", "1,-2", "((1))", "1,2,3,4,5,6,7,8,9"}) {
    EXPECT_THROW(ParseShapeText(bad, "here"), Error) << bad;
  }
  try {
    ParseShapeText("1,0", "case.txt:3");
    FAIL();
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("case.txt:3: bad shape '1,0'"));
  }
}

TEST(GoldenCase, ComparesLikeAllclose) {
  const Comparison same = CompareWithTolerance({1.0f, 2.0f}, {1.0f, 2.0f}, 0.0f, 0.0f);
  EXPECT_TRUE(same.passed());
  // |got - ref| <= atol + rtol * |ref|: 100.005 vs 100 passes with rtol 1e-4, 0.01 vs 0 does not.
  // (Not 100.01: as a float it is 100.0100021, just outside 1e-6 + 1e-4 * 100.)
  const Comparison mixed = CompareWithTolerance({100.005f, 0.01f}, {100.0f, 0.0f}, 1e-6f, 1e-4f);
  EXPECT_EQ(mixed.mismatch_count, 1u);
  EXPECT_EQ(mixed.first_mismatch, 1u);
  EXPECT_NEAR(mixed.max_absolute_error, 0.01, 1e-6);
  // NaN matches NaN only.
  EXPECT_TRUE(CompareWithTolerance({NAN}, {NAN}, 0, 0).passed());
  EXPECT_FALSE(CompareWithTolerance({NAN}, {1.0f}, 1, 1).passed());
  EXPECT_FALSE(CompareWithTolerance({1.0f}, {NAN}, 1, 1).passed());
  EXPECT_THROW(CompareWithTolerance({1.0f}, {1.0f, 2.0f}, 0, 0), Error);
}

TEST(RawFile, ChecksTheValueCount) {
  const std::string path = test_support::TestDirectory() + "values.f32";
  WriteFloatFile(path, {1, 2, 3});
  EXPECT_EQ(ReadFloatFile(path), (std::vector<float>{1, 2, 3}));
  try {
    ReadFloatFile(path, 4);
    FAIL();
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("expected 4 float32 values, the file holds 3"));
  }
  EXPECT_THROW(ReadFloatFile("/nonexistent.f32"), Error);
}

}  // namespace
}  // namespace lumen
