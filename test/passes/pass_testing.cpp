#include "passes/pass_testing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "lumen/session.hpp"
#include "pnnx/param_reader.hpp"
#include "pnnx/pnnx_reader.hpp"
#include "runtime/model_internals.hpp"
#include "runtime/runtime_graph.hpp"

namespace lumen {
namespace test_support {

std::string ParamText(const std::vector<std::string>& operator_lines) {
  std::set<std::string> operands;  // every operand is some operator's output
  std::string body;
  for (const std::string& line : operator_lines) {
    std::istringstream tokens(line);
    std::string type, name;
    size_t inputs = 0, outputs = 0;
    tokens >> type >> name >> inputs >> outputs;
    std::string operand;
    for (size_t i = 0; i < inputs + outputs && tokens >> operand; ++i) {
      if (i >= inputs) operands.insert(operand);
    }
    body += line + "\n";
  }
  return Concat("7767517\n", operator_lines.size(), " ", operands.size(), "\n", body);
}

Graph GraphWithWeights(const std::string& param_text) {
  Graph graph = ParsePnnxParam(param_text, "graph.param");
  ResolvePnnxInputsAndOutputs(&graph);
  int seed = 0;
  for (Node& node : graph.nodes) {
    for (auto& [key, attribute] : node.attributes) {
      std::vector<float> values(attribute.ElementCount());
      for (float& value : values) value = 0.05f * static_cast<float>(seed++ % 17 - 8);
      attribute.type = DataType::kFloat32;
      attribute.data.resize(values.size() * sizeof(float));
      if (!values.empty()) std::memcpy(attribute.data.data(), values.data(), attribute.data.size());
    }
  }
  return graph;
}

LayerGraph BuildLayerGraph(const std::string& param_text) {
  const Graph graph = GraphWithWeights(param_text);
  LayerGraph layers;
  std::map<std::string, int> index;
  for (const Operand& operand : graph.operands) {
    index[operand.name] = static_cast<int>(layers.operands.size());
    layers.operands.push_back({operand.name, operand.shape, -1, {}});
  }
  for (const std::string& name : graph.input_names) layers.inputs.push_back(index.at(name));
  for (const std::string& name : graph.output_names) layers.outputs.push_back(index.at(name));
  for (const Node& node : graph.nodes) {
    LayerGraph::Step step;
    step.type = node.type;
    step.name = node.name;
    step.description = node.DescribeWithLine();
    step.layer = LayerRegistry::Create(LayerConfig(node, &graph.operands));
    for (const std::string& name : node.input_names) step.inputs.push_back(index.at(name));
    for (const std::string& name : node.output_names) {
      step.outputs.push_back(index.at(name));
      layers.operands[static_cast<size_t>(index.at(name))].producer =
          static_cast<int>(layers.steps.size());
    }
    layers.steps.push_back(std::move(step));
  }
  return layers;
}

std::shared_ptr<const Model> BuildModel(const std::string& param_text, bool fuse) {
  RuntimeGraphOptions options;
  options.fuse = fuse;
  return ModelInternals::Wrap(
      std::make_unique<RuntimeGraph>(GraphWithWeights(param_text), options));
}

std::vector<std::string> StepTypes(const std::vector<LayerGraph::Step>& steps) {
  std::vector<std::string> types;
  for (const LayerGraph::Step& step : steps) types.push_back(step.type);
  return types;
}

int OperandIndex(const LayerGraph& graph, const std::string& name) {
  for (size_t index = 0; index < graph.operands.size(); ++index) {
    if (graph.operands[index].name == name) return static_cast<int>(index);
  }
  return -1;
}

Tensor VaryingInput(const Shape& shape) {
  size_t count = 1;
  for (uint32_t extent : shape) count *= extent;
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = 0.37f * static_cast<float>(i % 31) - 5.5f;
  return Tensor::FromRowMajor(values, shape);
}

void ExpectPassLeavesAlone(int (*pass)(LayerGraph*), const std::vector<std::string>& operator_lines,
                           const std::string& why) {
  LayerGraph graph = BuildLayerGraph(ParamText(operator_lines));
  const std::vector<std::string> before = StepTypes(graph.steps);
  EXPECT_EQ(pass(&graph), 0) << why;
  EXPECT_EQ(StepTypes(graph.steps), before) << why;
}

void ExpectPassesKeepTheResults(const std::string& param_text, const Tensor& input,
                                float tolerance) {
  Session with_passes(BuildModel(param_text, true));
  Session without_passes(BuildModel(param_text, false));
  const std::vector<Tensor> expected = without_passes.Run({input});
  const std::vector<Tensor> got = with_passes.Run({input});
  ASSERT_EQ(got.size(), expected.size());
  for (size_t output = 0; output < got.size(); ++output) {
    ASSERT_EQ(got[output].shape(), expected[output].shape()) << "output " << output;
    const std::vector<float> a = got[output].ToRowMajor();
    const std::vector<float> b = expected[output].ToRowMajor();
    for (size_t i = 0; i < a.size(); ++i) {
      const float scale = std::max({1.0f, std::fabs(a[i]), std::fabs(b[i])});
      ASSERT_NEAR(a[i], b[i], tolerance * scale) << "output " << output << ", element " << i;
    }
  }
}

}  // namespace test_support
}  // namespace lumen
