// Every case in tmp/models, tmp/anysize and tmp/onnx: run the export through Lumen, compare with
// PyTorch. tmp/onnx cases are the same PyTorch modules exported with torch.onnx.export
// (scripts/make_onnx_cases.py); their shapes are annotated by ONNX shape inference. tmp/pnnx_ops
// cases are pnnx's own operator tests (ncnn's tools/pnnx/tests) converted by pnnx, with the traced
// module's outputs (scripts/pnnx_operator_tests.py).
//
// tmp/models cases run at the input shape they were exported at, so every operand's inferred
// shape must also equal the one pnnx annotated. tmp/anysize cases run an export at another input
// shape (another image size or batch): there the annotations are stale by design, and only the
// outputs are compared with PyTorch's eager run at that shape.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "io/golden_case.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "onnx/onnx_reader.hpp"
#include "pnnx/param_reader.hpp"
#include "pnnx/pnnx_reader.hpp"
#include "support/case_runner.hpp"
#include "support/source_directory.hpp"

namespace lumen {
namespace {

const std::string kSourceDirectory = lumen::test_support::SourceDirectory();

// Case folders (relative to the source directory) under `folder` that hold a case.txt.
std::vector<std::string> ListCases(const std::string& folder) {
  std::vector<std::string> names;
  if (!std::filesystem::is_directory(kSourceDirectory + "/" + folder)) return names;
  for (const auto& entry : std::filesystem::directory_iterator(kSourceDirectory + "/" + folder)) {
    if (std::filesystem::exists(entry.path() / "case.txt")) {
      names.push_back(folder + "/" + entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> AllCases() {
  std::vector<std::string> cases = ListCases("tmp/models");
  for (const std::string& name : ListCases("tmp/anysize")) cases.push_back(name);
  for (const std::string& name : ListCases("tmp/onnx")) cases.push_back(name);
  for (const std::string& name : ListCases("tmp/pnnx_ops")) cases.push_back(name);
  return cases;
}

// Op types of a case that no layer implements, as "type 'name'" strings. Asked of the graph as the
// reader hands it over: pnnx.Input/Output and a prim::TupleConstruct that only packs the outputs
// (RNNs' y, h_n, c_n; attention with its weights) are resolved there, not run by layers.
std::vector<std::string> UnsupportedOps(const std::string& param_path) {
  std::vector<std::string> missing;
  Graph graph;
  if (param_path.size() >= 5 && param_path.compare(param_path.size() - 5, 5, ".onnx") == 0) {
    // The ONNX reader itself refuses an op it cannot map, naming it. Any other error reading the
    // file is the case failing, not a skip.
    try {
      graph = ReadOnnxGraph(param_path);
    } catch (const Error& error) {
      if (std::string(error.what()).find("Lumen does not implement") == std::string::npos) throw;
      return {error.what()};
    }
  } else {
    graph = ReadPnnxParam(param_path);
    ResolvePnnxInputsAndOutputs(&graph);
  }
  for (const Node& node : graph.nodes) {
    if (!LayerRegistry::Has(node.type)) missing.push_back(node.Describe());
  }
  return missing;
}

class GoldenCaseTest : public testing::TestWithParam<std::string> {};

// Runs the case on `threads` threads and EXPECTs it to match PyTorch.
void ExpectGoldenCaseMatches(const std::string& name, int threads) {
  const std::string directory = kSourceDirectory + "/" + name;
  const GoldenCase golden = ReadGoldenCase(directory);
  const std::vector<std::string> missing = UnsupportedOps(golden.param_path);
  if (!missing.empty()) GTEST_SKIP() << "unsupported op " << missing.front();
  test_support::CaseOptions options;
  options.threads = threads;
  options.check_annotated_shapes = name.rfind("tmp/anysize/", 0) != 0;
  test_support::ExpectCaseMatches(directory, options);
}

TEST_P(GoldenCaseTest, MatchesPyTorch) { ExpectGoldenCaseMatches(GetParam(), 1); }

// Two threads share every parallel loop's chunks and grow their own scratch: the same case must
// still match (scripts/sanitize.sh runs this under ThreadSanitizer).
TEST_P(GoldenCaseTest, MatchesPyTorchOnTwoThreads) { ExpectGoldenCaseMatches(GetParam(), 2); }

// Every corpus case must run: a case skipped for a missing op would hide a regression.
TEST(Corpus, EveryCaseIsSupported) {
  for (const std::string& name : AllCases()) {
    const GoldenCase golden = ReadGoldenCase(kSourceDirectory + "/" + name);
    const std::vector<std::string> missing = UnsupportedOps(golden.param_path);
    EXPECT_TRUE(missing.empty()) << name << " uses unsupported " << missing.front();
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, GoldenCaseTest, testing::ValuesIn(AllCases()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           // "tmp/models/resnet18" -> "models_resnet18"
                           std::string name = info.param.substr(4);
                           std::replace(name.begin(), name.end(), '/', '_');
                           return name;
                         });

}  // namespace
}  // namespace lumen
