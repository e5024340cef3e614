// Every case in tmp/models: run the PNNX export through Lumen, compare with PyTorch's outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "lumen/io/golden_case.hpp"
#include "lumen/io/raw_file.hpp"
#include "lumen/layer/layer_registry.hpp"
#include "lumen/pnnx/param_reader.hpp"
#include "lumen/runtime/runtime_graph.hpp"

namespace lumen {
namespace {

const std::string kModelsDirectory = std::string(LUMEN_SOURCE_DIR) + "/tmp/models";

std::vector<std::string> ListCases() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(kModelsDirectory)) {
    if (std::filesystem::exists(entry.path() / "case.txt")) {
      names.push_back(entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Op types of a case that no layer implements, as "type 'name'" strings.
std::vector<std::string> UnsupportedOps(const std::string& param_path) {
  std::vector<std::string> missing;
  for (const auto& op : ReadPnnxParam(param_path).operators) {
    if (!LayerRegistry::Has(op->type)) missing.push_back(op->Describe());
  }
  return missing;
}

class GoldenCaseTest : public testing::TestWithParam<std::string> {};

TEST_P(GoldenCaseTest, MatchesPyTorch) {
  const GoldenCase golden = ReadGoldenCase(kModelsDirectory + "/" + GetParam());
  const std::vector<std::string> missing = UnsupportedOps(golden.param_path);
  if (!missing.empty()) GTEST_SKIP() << "unsupported op " << missing.front();

  RuntimeGraph graph(golden.param_path, golden.bin_path);
  graph.Build();
  std::vector<TensorBatch> inputs;
  for (const auto& input : golden.inputs) {
    inputs.push_back(ReadBatchFile(input.path, input.shape));
  }
  const std::vector<TensorBatch> outputs = graph.Forward(inputs);
  ASSERT_EQ(outputs.size(), golden.outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    ASSERT_EQ(BatchShape(outputs[i]), golden.outputs[i].shape) << "output " << i;
    std::vector<float> got(ShapeElementCount(golden.outputs[i].shape));
    BatchToRowMajor(outputs[i], got.data());
    const std::vector<float> reference = ReadFloatFile(golden.outputs[i].path, got.size());
    const Comparison comparison =
        CompareWithTolerance(got, reference, golden.absolute_tolerance, golden.relative_tolerance);
    EXPECT_TRUE(comparison.passed())
        << "output " << i << ": " << comparison.mismatch_count << " of " << comparison.element_count
        << " values outside atol " << golden.absolute_tolerance << " rtol "
        << golden.relative_tolerance << "; max abs error " << comparison.max_absolute_error
        << ", first at index " << comparison.first_mismatch << " (got "
        << got[comparison.first_mismatch] << ", PyTorch " << reference[comparison.first_mismatch]
        << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, GoldenCaseTest, testing::ValuesIn(ListCases()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param;  // case folder names are valid identifiers
                         });

}  // namespace
}  // namespace lumen
