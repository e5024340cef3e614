// RuntimeGraph on small hand-written graphs: operands linked by position (repeated inputs,
// several outputs), the order Kahn's algorithm gives among operators that are ready together,
// and activation fusion on a real ResNet18 (course lesson 05).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lumen/error.hpp"
#include "lumen/model.hpp"
#include "lumen/session.hpp"
#include "pnnx/param_reader.hpp"
#include "pnnx/pnnx_reader.hpp"
#include "runtime/model_internals.hpp"
#include "runtime/runtime_graph.hpp"
#include "support/source_directory.hpp"

namespace lumen {
namespace {

using ::testing::HasSubstr;

// A model built from the text of a param file (no weights).
std::shared_ptr<const Model> ModelFromText(const std::string& text) {
  Graph graph = ParsePnnxParam(text, "graph.param");
  ResolvePnnxInputsAndOutputs(&graph);
  return ModelInternals::Wrap(std::make_unique<RuntimeGraph>(std::move(graph)));
}

// The names of the steps in execution order.
std::vector<std::string> StepNames(const Model& model) {
  std::vector<std::string> names;
  for (const auto& step : ModelInternals::Graph(model).steps()) names.push_back(step.name);
  return names;
}

TEST(RuntimeGraph, PassesTheSameOperandTwiceByPosition) {
  // cat reads the input three times; `twice` reads cat's output twice, as @0 and @1. Each use is
  // one reader: a reader list without the repeats never lets `twice` become ready.
  Session session(
      ModelFromText("7767517\n4 3\n"
                    "pnnx.Input in 0 1 0 #0=(1,2)f32\n"
                    "torch.cat cat 3 1 0 0 0 1 dim=1 #1=(1,6)f32\n"
                    "pnnx.Expression twice 2 1 1 1 2 expr=sub(mul(@0,3),@1) "
                    "#2=(1,6)f32\n"
                    "pnnx.Output out 1 0 2\n"));
  const std::vector<Tensor> outputs = session.Run({Tensor::FromRowMajor({1.5f, -2.0f}, {1, 2})});
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].ToRowMajor(), (std::vector<float>{3, -4, 3, -4, 3, -4}));
}

TEST(RuntimeGraph, FeedsEachOutputOfAMultiOutputOperatorToItsConsumers) {
  Session session(ModelFromText(
      "7767517\n5 4\n"
      "pnnx.Input in 0 1 0 #0=(1,5)f32\n"
      "torch.split split 1 2 0 1 2 dim=1 split_size_or_sections=(2,3) #1=(1,2)f32 #2=(1,3)f32\n"
      "nn.ReLU relu 1 1 2 3 #3=(1,3)f32\n"
      "pnnx.Output out0 1 0 1\n"
      "pnnx.Output out1 1 0 3\n"));
  const std::vector<Tensor> outputs =
      session.Run({Tensor::FromRowMajor({1, -2, -3, 4, -5}, {1, 5})});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].ToRowMajor(), (std::vector<float>{1, -2}));
  EXPECT_EQ(outputs[1].ToRowMajor(), (std::vector<float>{0, 4, 0}));
}

TEST(RuntimeGraph, KeepsFileOrderAmongTheReady) {
  // Two independent branches, written interleaved: among the ready operators the earliest line
  // runs first, so the order is the file's (a FIFO or a stack of ready operators gives another).
  const auto model = ModelFromText(
      "7767517\n8 7\n"
      "pnnx.Input in 0 1 0 #0=(1,3)f32\n"
      "nn.ReLU a1 1 1 0 1 #1=(1,3)f32\n"
      "nn.Sigmoid b1 1 1 0 2 #2=(1,3)f32\n"
      "nn.Tanh b2 1 1 2 3 #3=(1,3)f32\n"
      "nn.ReLU a2 1 1 1 4 #4=(1,3)f32\n"
      "nn.Sigmoid c1 1 1 0 5 #5=(1,3)f32\n"
      "torch.cat cat 3 1 4 3 5 6 dim=1 #6=(1,9)f32\n"
      "pnnx.Output out 1 0 6\n");
  EXPECT_EQ(StepNames(*model), (std::vector<std::string>{"a1", "b1", "b2", "a2", "c1", "cat"}));
}

TEST(RuntimeGraph, KeepsTheOrderOfTheGraphInputsAndOutputs) {
  // Inputs and outputs keep the order of their pnnx.Input / pnnx.Output lines, not of names.
  Session session(
      ModelFromText("7767517\n6 4\n"
                    "pnnx.Input second 0 1 b #b=(1,2)f32\n"
                    "pnnx.Input first 0 1 a #a=(1,2)f32\n"
                    "pnnx.Expression sub 2 1 b a d expr=sub(@0,@1) #d=(1,2)f32\n"
                    "nn.ReLU relu 1 1 d r #r=(1,2)f32\n"
                    "pnnx.Output out_r 1 0 r\n"
                    "pnnx.Output out_d 1 0 d\n"));
  EXPECT_EQ(session.model().input_names(), (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(session.model().output_names(), (std::vector<std::string>{"r", "d"}));
  const std::vector<Tensor> outputs =
      session.Run({Tensor::FromRowMajor({1, 5}, {1, 2}), Tensor::FromRowMajor({3, 2}, {1, 2})});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].ToRowMajor(), (std::vector<float>{0, 3}));
  EXPECT_EQ(outputs[1].ToRowMajor(), (std::vector<float>{-2, 3}));
}

TEST(RuntimeGraph, RefusesAnOperandThatDoesNotExist) {
  // The pnnx reader never makes such a graph, but another reader (or a tool) might: the runtime
  // checks every name a node uses instead of trusting its reader.
  Graph graph = ParsePnnxParam(
      "7767517\n3 2\n"
      "pnnx.Input in 0 1 0 #0=(1,3)f32\n"
      "nn.ReLU relu 1 1 0 1 #1=(1,3)f32\n"
      "pnnx.Output out 1 0 1\n",
      "graph.param");
  ResolvePnnxInputsAndOutputs(&graph);
  ASSERT_EQ(graph.nodes.size(), 1u);
  graph.nodes[0].input_names[0] = "7";
  try {
    RuntimeGraph built(std::move(graph));
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("nn.ReLU 'relu' (line 4)"));
    EXPECT_THAT(error.what(), HasSubstr("'7'"));
  }
}

TEST(RuntimeGraph, FusesAnActivationIntoTheConvolutionBeforeIt) {
  const auto model =
      Model::Load(lumen::test_support::SourceDirectory() + "/tmp/models/resnet18/model.pnnx.param");
  int fused = 0;
  for (const auto& step : ModelInternals::Graph(*model).steps()) {
    if (step.fused.empty()) continue;
    EXPECT_EQ(step.type, "nn.Conv2d");
    EXPECT_THAT(step.fused[0], HasSubstr("nn.ReLU"));
    ++fused;
  }
  // ResNet18: the stem and the first convolution of each of the 8 blocks are followed by a ReLU
  // of their own; the other ReLUs follow a residual addition and cannot be fused.
  EXPECT_EQ(fused, 9);
}

}  // namespace
}  // namespace lumen
