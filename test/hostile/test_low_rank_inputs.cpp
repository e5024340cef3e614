// Every one-operator layer case run again with inputs of rank 0, 1 and 2 (shapes (), (1), (3),
// (2,3)): whatever a layer makes of such inputs, it must compute a result or refuse with a
// lumen::Error naming itself, never crash, read out of bounds (the sanitizer stage runs this
// too) or throw anything else. PyTorch accepts rank-0 tensors in most operators, so code that
// quietly assumes a rank of at least 1 (shape.back(), shape[rank - 2]) is what this looks for.
#include <gtest/gtest.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "lumen/error.hpp"
#include "lumen/model.hpp"
#include "lumen/session.hpp"
#include "support/source_directory.hpp"

namespace lumen {
namespace {

const std::string kLayers = lumen::test_support::SourceDirectory() + "/test/data/layers/";

// The case folders of test/data/layers, sorted.
std::vector<std::string> LayerCases() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(kLayers)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(LowRankInputs, EveryLayerComputesOrRefusesCleanly) {
  const std::vector<Shape> variants = {Shape{}, Shape{1}, Shape{3}, Shape{2, 3}};
  size_t runs = 0;
  size_t refusals = 0;
  for (const std::string& name : LayerCases()) {
    const std::shared_ptr<const Model> model = Model::Load(kLayers + name + "/model.pnnx.param");
    for (const Shape& shape : variants) {
      SessionOptions options;
      options.threads = 2;
      options.max_memory_bytes = size_t{64} << 20;
      Session session(model, options);
      std::vector<Tensor> inputs;
      for (size_t i = 0; i < model->input_names().size(); ++i) {
        inputs.emplace_back(shape);
        inputs.back().Fill(1.0f);  // a valid index for index_select and embedding, too
      }
      try {
        const std::vector<Tensor> outputs = session.Run(inputs);
        EXPECT_EQ(outputs.size(), model->output_names().size()) << name;
        ++runs;
      } catch (const Error& error) {
        // A refusal names the operator (its type and quoted name) or the model's inputs.
        const std::string message = error.what();
        EXPECT_TRUE(message.find('\'') != std::string::npos) << name << ": " << message;
        ++refusals;
      } catch (const std::exception& other) {
        ADD_FAILURE() << name << " at " << ShapeToString(shape)
                      << ": threw something other than lumen::Error: " << other.what();
      }
    }
  }
  // Both outcomes occur: most layers refuse a (3) or (2,3) input, elementwise ones accept them.
  EXPECT_GT(runs, 100u);
  EXPECT_GT(refusals, 100u);
}

}  // namespace
}  // namespace lumen
