// Every case in tmp/models: run the PNNX export through Lumen, compare with PyTorch's outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "lumen/io/golden_case.hpp"
#include "lumen/layer/layer_registry.hpp"
#include "lumen/pnnx/param_reader.hpp"
#include "lumen/runtime/runtime_graph.hpp"
#include "support/case_runner.hpp"

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

  test_support::ExpectCaseMatches(kModelsDirectory + "/" + GetParam());
}

// Every corpus case must run: a case skipped for a missing op would hide a regression.
TEST(Corpus, EveryCaseIsSupported) {
  for (const std::string& name : ListCases()) {
    const GoldenCase golden = ReadGoldenCase(kModelsDirectory + "/" + name);
    const std::vector<std::string> missing = UnsupportedOps(golden.param_path);
    EXPECT_TRUE(missing.empty()) << name << " uses unsupported " << missing.front();
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, GoldenCaseTest, testing::ValuesIn(ListCases()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param;  // case folder names are valid identifiers
                         });

}  // namespace
}  // namespace lumen
