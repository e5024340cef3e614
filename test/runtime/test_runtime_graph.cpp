// RuntimeGraph: linking, topological order, multi-output operators, repeated inputs, batches,
// memory sharing, and the errors Build and Forward report.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lumen/base/error.hpp"
#include "lumen/pnnx/param_reader.hpp"
#include "lumen/runtime/runtime_graph.hpp"

namespace lumen {
namespace {

using ::testing::HasSubstr;

RuntimeGraph Graph(const std::string& text) {
  return RuntimeGraph(ParsePnnxParam(text, "graph.param"));
}

std::string BuildError(const std::string& text) {
  try {
    Graph(text).Build();
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

// A batch of `samples` tensors of `shape` holding 0, 1, 2, ... - 5 (some negative).
TensorBatch Ramp(uint32_t samples, const Shape& shape) {
  TensorBatch batch;
  float value = -5.0f;
  for (uint32_t s = 0; s < samples; ++s) {
    std::vector<float> values(ShapeElementCount(shape));
    for (float& v : values) v = value++;
    batch.push_back(Tensor::FromRowMajor(values.data(), shape));
  }
  return batch;
}

const char* kReluGraph =
    "7767517\n3 2\n"
    "pnnx.Input in 0 1 0 #0=(4,2,3)f32\n"
    "nn.ReLU relu 1 1 0 1 #0=(4,2,3)f32 #1=(4,2,3)f32\n"
    "pnnx.Output out 1 0 1 #1=(4,2,3)f32\n";

TEST(RuntimeGraph, RunsEverySampleOfTheExportedBatch) {
  RuntimeGraph graph = Graph(kReluGraph);
  graph.Build();
  EXPECT_EQ(graph.input_shapes(), std::vector<Shape>{Shape({4, 2, 3})});
  const TensorBatch input = Ramp(4, {2, 3});
  const std::vector<TensorBatch> outputs = graph.Forward({input});
  ASSERT_EQ(outputs.size(), 1u);
  ASSERT_EQ(outputs[0].size(), 4u);
  for (size_t s = 0; s < 4; ++s) {
    const std::vector<float> got = outputs[0][s].ToRowMajor();
    const std::vector<float> in = input[s].ToRowMajor();
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], std::max(in[i], 0.0f));
  }
}

TEST(RuntimeGraph, RefusesAnInputOfTheWrongShapeOrCount) {
  RuntimeGraph graph = Graph(kReluGraph);
  graph.Build();
  try {
    graph.Forward({Ramp(4, {2, 4})});
    FAIL();
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "input 0 ('0'): expected shape (4,2,3), got (4,2,4)");
  }
  try {
    graph.Forward({Ramp(1, {2, 3})});
    FAIL();
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "input 0 ('0'): expected shape (4,2,3), got (1,2,3)");
  }
  EXPECT_THAT(
      [&] {
        try {
          graph.Forward({});
        } catch (const Error& error) {
          return std::string(error.what());
        }
        return std::string();
      }(),
      "the model has 1 input(s) but 0 were given");
}

TEST(RuntimeGraph, SortsOperatorsWrittenOutOfOrder) {
  RuntimeGraph graph = Graph(
      "7767517\n4 3\n"
      "pnnx.Output out 1 0 2 #2=(1,3)f32\n"
      "nn.ReLU second 1 1 1 2 #1=(1,3)f32 #2=(1,3)f32\n"
      "nn.ReLU first 1 1 0 1 #0=(1,3)f32 #1=(1,3)f32\n"
      "pnnx.Input in 0 1 0 #0=(1,3)f32\n");
  graph.Build();
  std::vector<std::string> names;
  for (const RuntimeOperator* op : graph.ExecutionOrder()) names.push_back(op->name);
  EXPECT_EQ(names, (std::vector<std::string>{"in", "first", "second", "out"}));
}

TEST(RuntimeGraph, ReportsACycle) {
  EXPECT_EQ(BuildError("7767517\n4 3\n"
                       "pnnx.Input in 0 1 0 #0=(1,3)f32\n"
                       "pnnx.Expression a 2 1 0 2 1 expr=add(@0,@1) #1=(1,3)f32\n"
                       "nn.ReLU b 1 1 1 2 #2=(1,3)f32\n"
                       "pnnx.Output out 1 0 2\n"),
            "the graph has a cycle; these operators can never run:\n"
            "  pnnx.Expression 'a' (line 4)\n  nn.ReLU 'b' (line 5)\n  pnnx.Output 'out' (line 6)");
}

TEST(RuntimeGraph, ListsEveryUnsupportedOperatorAtOnce) {
  EXPECT_EQ(BuildError("7767517\n4 3\n"
                       "pnnx.Input in 0 1 0 #0=(1,3)f32\n"
                       "nn.Frobnicate first 1 1 0 1 #1=(1,3)f32\n"
                       "torch.whatever second 1 1 1 2 #2=(1,3)f32\n"
                       "pnnx.Output out 1 0 2\n"),
            "the model uses operators Lumen does not implement:\n"
            "  nn.Frobnicate 'first' (line 4)\n  torch.whatever 'second' (line 5)");
}

TEST(RuntimeGraph, ListsEveryOperatorThatCannotBeBuilt) {
  EXPECT_EQ(BuildError("7767517\n4 3\n"
                       "pnnx.Input in 0 1 0 #0=(1,3,4,4)f32\n"
                       "nn.Softmax soft 1 1 0 1 #1=(1,3,4,4)f32\n"
                       "nn.ChannelShuffle shuffle 1 1 1 2 groups=x #2=(1,3,4,4)f32\n"
                       "pnnx.Output out 1 0 2\n"),
            "cannot build some layers:\n"
            "  nn.Softmax 'soft': missing parameter 'dim'\n"
            "  nn.ChannelShuffle 'shuffle': parameter 'groups': expected an int, got string 'x'");
}

TEST(RuntimeGraph, NeedsAStaticShapeForEveryOperand) {
  EXPECT_THAT(BuildError("7767517\n3 2\n"
                         "pnnx.Input in 0 1 0 #0=(1,3)f32\n"
                         "nn.ReLU relu 1 1 0 1\n"
                         "pnnx.Output out 1 0 1\n"),
              HasSubstr("operand '1' (output of nn.ReLU 'relu' (line 4)) has no static shape in "
                        "the param file"));
  EXPECT_THAT(BuildError("7767517\n3 2\n"
                         "pnnx.Input in 0 1 0 #0=(?,3)f32\n"
                         "nn.ReLU relu 1 1 0 1 #1=(1,3)f32\n"
                         "pnnx.Output out 1 0 1\n"),
              HasSubstr("operand '0' (output of pnnx.Input 'in' (line 3)) has no static shape"));
  EXPECT_EQ(BuildError("7767517\n3 2\n"
                       "pnnx.Input in 0 1 0 #0=(1,3)f16\n"
                       "nn.ReLU relu 1 1 0 1 #1=(1,3)f32\n"
                       "pnnx.Output out 1 0 1\n"),
            "operand '0' has dtype f16; Lumen computes in f32 only");
}

TEST(RuntimeGraph, PassesTheSameOperandTwiceByPosition) {
  RuntimeGraph graph = Graph(
      "7767517\n4 3\n"
      "pnnx.Input in 0 1 0 #0=(1,2)f32\n"
      "torch.cat cat 3 1 0 0 0 1 dim=1 #1=(1,6)f32\n"
      "pnnx.Expression twice 2 1 1 1 2 expr=sub(mul(@0,3),@1) #2=(1,6)f32\n"
      "pnnx.Output out 1 0 2\n");
  graph.Build();
  const std::vector<float> values = {1.5f, -2.0f};
  const std::vector<TensorBatch> outputs =
      graph.Forward({{Tensor::FromRowMajor(values.data(), {2})}});
  EXPECT_EQ(outputs[0][0].ToRowMajor(), (std::vector<float>{3, -4, 3, -4, 3, -4}));
}

TEST(RuntimeGraph, FeedsEachOutputOfAMultiOutputOperatorToItsConsumers) {
  RuntimeGraph graph = Graph(
      "7767517\n5 4\n"
      "pnnx.Input in 0 1 0 #0=(1,5)f32\n"
      "torch.split split 1 2 0 1 2 dim=1 split_size_or_sections=(2,3) #1=(1,2)f32 #2=(1,3)f32\n"
      "nn.ReLU relu 1 1 2 3 #3=(1,3)f32\n"
      "pnnx.Output out0 1 0 1\n"
      "pnnx.Output out1 1 0 3\n");
  graph.Build();
  const std::vector<float> values = {1, -2, 3, -4, 5};
  const std::vector<TensorBatch> outputs =
      graph.Forward({{Tensor::FromRowMajor(values.data(), {5})}});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0][0].ToRowMajor(), (std::vector<float>{1, -2}));
  EXPECT_EQ(outputs[1][0].ToRowMajor(), (std::vector<float>{3, 0, 5}));
}

TEST(RuntimeGraph, SharesMemoryAndKeepsInputsForTheNextRun) {
  // A chain of ReLUs: the planner reuses memory, but the input must survive for Run again.
  std::string text = "7767517\n7 6\npnnx.Input in 0 1 0 #0=(1,64)f32\n";
  for (int i = 0; i < 5; ++i) {
    text += "nn.ReLU r" + std::to_string(i) + " 1 1 " + std::to_string(i) + " " +
            std::to_string(i + 1) + " #" + std::to_string(i + 1) + "=(1,64)f32\n";
  }
  text += "pnnx.Output out 1 0 5\n";
  RuntimeGraph graph = Graph(text);
  graph.Build();
  EXPECT_LT(graph.planned_activation_bytes(), graph.separate_activation_bytes());
  const TensorBatch input = Ramp(1, {64});
  const std::vector<float> first = graph.Forward({input})[0][0].ToRowMajor();
  graph.Run();  // the inputs are still in place
  EXPECT_EQ(graph.output(0)[0].ToRowMajor(), first);
  EXPECT_EQ(first[0], 0.0f);
  EXPECT_EQ(first[63], 58.0f);
}

TEST(RuntimeGraph, FusesAnActivationIntoTheConvolutionBeforeIt) {
  const std::string models = std::string(LUMEN_SOURCE_DIR) + "/tmp/models/resnet18/";
  RuntimeGraph graph(models + "model.pnnx.param", models + "model.pnnx.bin");
  graph.Build();
  int fused = 0;
  for (const RuntimeOperator* op : graph.ExecutionOrder()) {
    if (!op->fused.empty()) {
      EXPECT_EQ(op->type, "nn.Conv2d");
      EXPECT_THAT(op->fused[0], HasSubstr("nn.ReLU"));
      ++fused;
    }
  }
  // ResNet18: the stem and the first convolution of each of the 8 blocks are followed by a ReLU
  // of their own; the other ReLUs follow a residual addition and cannot be fused.
  EXPECT_EQ(fused, 9);
}

TEST(RuntimeGraph, RefusesToRunBeforeBuild) {
  RuntimeGraph graph = Graph(kReluGraph);
  EXPECT_THROW(graph.Forward({Ramp(4, {2, 3})}), Error);
  EXPECT_THROW(graph.Run(), Error);
}

}  // namespace
}  // namespace lumen
