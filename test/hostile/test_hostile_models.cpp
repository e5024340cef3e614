// Regression tests for the hostile models of issue 9: tiny PNNX models that once crashed Lumen
// (heap overflow, null dereference, stack overflow, uncaught bad_alloc, 70 s of garbage). Each
// must now give a clean lumen::Error naming the file or the operator and the problem. The models
// are in test/data/hostile/, written by scripts/make_hostile_models.py (which also writes what
// scripts/hostile.sh expects from build/lumen_run on each).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "io/golden_case.hpp"
#include "io/raw_file.hpp"
#include "lumen/error.hpp"
#include "lumen/model.hpp"
#include "lumen/session.hpp"
#include "math/fast_exp.hpp"
#include "support/case_runner.hpp"
#include "support/source_directory.hpp"

namespace lumen {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string CaseDirectory(const std::string& name) {
  return lumen::test_support::SourceDirectory() + "/test/data/hostile/" + name + "/";
}

// The message of the lumen::Error that loading case `name` and running it at `input_shapes`
// throws (each input filled with 0.5), or "" if it runs.
std::string ErrorOf(const std::string& name, const std::vector<Shape>& input_shapes,
                    size_t max_memory_bytes = size_t{256} << 20) {
  try {
    const std::shared_ptr<const Model> model =
        Model::Load(CaseDirectory(name) + "model.pnnx.param");
    SessionOptions options;
    options.threads = 1;
    options.max_memory_bytes = max_memory_bytes;
    Session session(model, options);
    session.SetInputShapes(input_shapes);
    for (size_t i = 0; i < input_shapes.size(); ++i) session.input(i).Fill(0.5f);
    session.Run();
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

// The message of the lumen::Error that Model::Load throws for case `name`, or "".
std::string LoadError(const std::string& path, const std::string& weights_path = "") {
  try {
    ModelOptions options;
    options.weights_path = weights_path;
    Model::Load(path, options);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(HostileModel, CatWithALowerRankInputIsRefused) {
  // Once: `reference[axis + 1] = 0` past the end of a rank-2 vector (heap overflow, SIGABRT).
  EXPECT_THAT(ErrorOf("cat_lower_rank", {{2, 3, 4, 5}, {2, 3}}),
              AllOf(HasSubstr("torch.cat 'cat'"), HasSubstr("input 1 has shape (2,3)"),
                    HasSubstr("expected (2,3,4,*)")));
  EXPECT_THAT(ErrorOf("cat_lower_rank_first", {{2, 3}, {2, 3, 4, 5}}),
              AllOf(HasSubstr("torch.cat 'cat'"), HasSubstr("dim 3 is out of range")));
}

TEST(HostileModel, ShapeWhoseElementCountWrapsIsRefused) {
  // (1,4194304,2097152,2097152) is 2^64 elements: 0 in size_t, no memory, a null dereference.
  EXPECT_THAT(ErrorOf("reshape_overflow", {{1, 4}}),
              AllOf(HasSubstr("Tensor.reshape 'reshape'"), HasSubstr("overflows")));
  EXPECT_THAT(ErrorOf("input_overflow", {{1, 4194304, 2097152, 2097152}}), HasSubstr("overflows"));
  try {
    ReadTensorFile(CaseDirectory("input_overflow") + "in0.f32", {1, 4194304, 2097152, 2097152});
    ADD_FAILURE() << "no error";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), AllOf(HasSubstr("in0.f32"), HasSubstr("overflows")));
  }
}

TEST(HostileModel, AttributeWhoseByteCountWrapsIsRefusedWhereItIsDeclared) {
  // Its byte count wrapped to 0, so an empty member passed the size check.
  EXPECT_THAT(LoadError(CaseDirectory("attribute_overflow") + "model.pnnx.param"),
              AllOf(HasSubstr("model.pnnx.param:4:"), HasSubstr("@data"), HasSubstr("overflows")));
}

TEST(HostileModel, HugeExportShapeIsRefusedByTheBudgetBeforeAllocating) {
  // (1,3,100000,100000) is 120 GB: once an uncaught std::bad_alloc (exit 134).
  const std::shared_ptr<const Model> model =
      Model::Load(CaseDirectory("huge_input") + "model.pnnx.param");
  Session session(model);  // the default budget: 3/4 of physical memory
  try {
    session.input(0);  // plans at the export shape
    ADD_FAILURE() << "no error";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), AllOf(HasSubstr("(1,3,100000,100000)"), HasSubstr("memory budget")));
  }
  // A 4-byte input file for it is refused before anything of that size is allocated.
  try {
    ReadTensorFile(CaseDirectory("huge_input") + "in0.f32", {1, 3, 100000, 100000});
    ADD_FAILURE() << "no error";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), AllOf(HasSubstr("in0.f32"), HasSubstr("expected 30000000000 float32 "
                                                                    "values, the file holds 1")));
  }
}

TEST(HostileModel, AllocationFailureIsAnErrorNamingTheOperandAndTheBytes) {
  // With no budget to stop it, an arena of 2^56 bytes cannot be allocated on any machine.
  EXPECT_THAT(
      ErrorOf("huge_input", {{65536, 65536, 65536, 256}}, std::numeric_limits<size_t>::max()),
      AllOf(HasSubstr("cannot allocate"), HasSubstr("MB for the operands"),
            HasSubstr("(65536,65536,65536,256)")));
}

TEST(HostileModel, TinyInputThatAnOperatorBlowsUpIsRefusedByTheBudget) {
  // (1,1,8,8) upsampled by 10000 is 25.6 GB.
  EXPECT_THAT(ErrorOf("upsample_budget", {{1, 1, 8, 8}}),
              AllOf(HasSubstr("memory budget of 256 MB"), HasSubstr("'1' (1,1,80000,80000)")));
}

TEST(HostileModel, BatchOf65536IsBoundedByTheBudget) {
  // Once: 65536 per-sample views with a 512 KB slice-pointer array each, 22 GB, OOM-killed.
  EXPECT_THAT(ErrorOf("batch_65536", {{65536, 1, 8, 8}}, size_t{1} << 30),
              AllOf(HasSubstr("(65536,1,8,8)"), HasSubstr("memory budget of 1024 MB")));
  // A batch of 65536 small maps runs, and the per-tensor bookkeeping (one pointer per map,
  // 2 MB per operand here) counts against the budget: 8 MB of data fits in 13 MB, not in 9.
  EXPECT_EQ(ErrorOf("directory_param", {{65536, 4, 2, 2}}, size_t{13} << 20), "");
  EXPECT_THAT(ErrorOf("directory_param", {{65536, 4, 2, 2}}, size_t{9} << 20),
              HasSubstr("memory budget"));
}

TEST(HostileModel, DeeplyNestedExpressionIsRefused) {
  // 20,000 nested calls overflowed the parser's stack; the depth limit is documented.
  EXPECT_THAT(LoadError(CaseDirectory("deep_expression") + "model.pnnx.param"),
              AllOf(HasSubstr("pnnx.Expression 'expr'"), HasSubstr("nested more than 256 levels"),
                    HasSubstr("(100002 characters)")));
  EXPECT_THAT(LoadError(CaseDirectory("deep_parentheses") + "model.pnnx.param"),
              AllOf(HasSubstr("pnnx.Expression 'expr'"), HasSubstr("at position 0")));
}

TEST(HostileModel, MaxPoolingWindowThatWrapsAroundIsRefused) {
  // kernel 2^30, dilation 4: once wrapped into a plausible size, then 70 s of garbage.
  EXPECT_THAT(ErrorOf("maxpool_huge_kernel", {{1, 3, 8, 8}}), HasSubstr("nn.MaxPool2d 'pool'"));
}

TEST(HostileModel, DirectoryWhereAFileIsExpectedIsNamed) {
  // The param path once reported "empty file".
  const std::string directory = CaseDirectory("directory_param");
  EXPECT_THAT(LoadError(directory + "a_directory"),
              AllOf(HasSubstr("a_directory"), HasSubstr("is a directory")));
  EXPECT_THAT(LoadError(directory + "model.pnnx.param", directory + "a_directory"),
              AllOf(HasSubstr("a_directory"), HasSubstr("is a directory")));
  try {
    ReadTensorFile(directory + "a_directory", {1, 4});
    ADD_FAILURE() << "no error";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), AllOf(HasSubstr("a_directory"), HasSubstr("is a directory")));
  }
}

TEST(HostileModel, NanAndInfinityPropagateAsInPyTorch) {
  // Lumen neither checks for NaN/Inf nor stops on them: like PyTorch it computes with them, and
  // the outputs match PyTorch's (NaN where PyTorch has NaN). Under -fsanitize=undefined this
  // also proves that no kernel converts a NaN to an integer (FastExp once did).
  test_support::ExpectCaseMatches(CaseDirectory("nan_inf"));
  EXPECT_TRUE(std::isnan(FastExp(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(std::isnan(FastExp(-std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(FastExp(-std::numeric_limits<float>::infinity()), 0.0f);
  // exp overflows to infinity above 88.7228317 (the largest float with a finite exp), as in
  // PyTorch (torch.exp(100.) is inf), and not a step before it.
  EXPECT_EQ(FastExp(100.0f), std::numeric_limits<float>::infinity());
  EXPECT_EQ(FastExp(std::numeric_limits<float>::infinity()),
            std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isfinite(FastExp(88.72283172607422f)));
  EXPECT_NEAR(FastExp(88.72283172607422f) / 3.4027985e38f, 1.0f, 1e-6f);
  EXPECT_EQ(FastExp(88.72283935546875f), std::numeric_limits<float>::infinity());
}

TEST(HostileModel, InfinityMatchesTheSameInfinityOnly) {
  // As torch.allclose: inf - inf is NaN, which once made every infinity a mismatch.
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(CompareWithTolerance({inf, -inf, 1.0f}, {inf, -inf, 1.0f}, 1e-5f, 1e-5f).passed());
  EXPECT_FALSE(CompareWithTolerance({inf}, {-inf}, 1e-5f, 1e-5f).passed());
  EXPECT_FALSE(CompareWithTolerance({inf}, {3e38f}, 1e-5f, 1e-5f).passed());
  EXPECT_FALSE(CompareWithTolerance({3e38f}, {inf}, 1e-5f, 1e-5f).passed());
  EXPECT_FALSE(CompareWithTolerance({std::nanf("")}, {inf}, 1e-5f, 1e-5f).passed());
}

}  // namespace
}  // namespace lumen
