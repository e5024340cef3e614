// RewriteChannelsLastBlocks on hand-written graphs: a ConvNeXt block's chain is turned
// channels-first (permutes gone, LayerNorm over channels, Linear as a 1x1 convolution, operands
// renamed and reshaped) and computes what it did; every chain that something else could observe,
// or that holds a layer that is not per pixel, is left alone. That the rewritten model computes
// PyTorch's numbers is the convnext_blocks case's job.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "passes/pass_testing.hpp"
#include "passes/passes.hpp"

namespace lumen {
namespace test_support {
namespace {

// x (1,8,5,6) -> permute -> LayerNorm(8) -> Linear 8->16 -> GELU -> Linear 16->8 -> permute -> y.
// Line k + 1 is operator k of the block (line 0 is the input).
std::vector<std::string> ConvNextBlock() {
  return {
      "pnnx.Input in 0 1 x #x=(1,8,5,6)f32",
      "Tensor.permute p0 1 1 x a dims=(0,2,3,1) #x=(1,8,5,6)f32 #a=(1,5,6,8)f32",
      "nn.LayerNorm norm 1 1 a b elementwise_affine=True eps=1e-6 normalized_shape=(8) "
      "@weight=(8)f32 @bias=(8)f32 #b=(1,5,6,8)f32",
      "nn.Linear fc1 1 1 b c bias=True in_features=8 out_features=16 @weight=(16,8)f32 "
      "@bias=(16)f32 #c=(1,5,6,16)f32",
      "nn.GELU act 1 1 c d #d=(1,5,6,16)f32",
      "nn.Linear fc2 1 1 d e bias=False in_features=16 out_features=8 @weight=(8,16)f32 "
      "#e=(1,5,6,8)f32",
      "Tensor.permute p1 1 1 e y dims=(0,3,1,2) #y=(1,8,5,6)f32",
      "pnnx.Output out 1 0 y",
  };
}

const std::vector<std::string> kUnchanged = {"Tensor.permute", "nn.LayerNorm", "nn.Linear",
                                             "nn.GELU",        "nn.Linear",    "Tensor.permute"};

TEST(ChannelsFirstBlocks, RewritesAConvNextBlock) {
  LayerGraph graph = BuildLayerGraph(ParamText(ConvNextBlock()));
  ASSERT_EQ(RewriteChannelsLastBlocks(&graph), 1);
  EXPECT_EQ(StepTypes(graph.steps), (std::vector<std::string>{"lumen.ChannelLayerNorm", "nn.Conv2d",
                                                              "nn.GELU", "nn.Conv2d"}));
  // Wired from the first permute's input to the last permute's output, renamed in between.
  const auto operand = [&](const std::string& name) { return OperandIndex(graph, name); };
  EXPECT_EQ(graph.steps[0].inputs, std::vector<int>{operand("x")});
  EXPECT_EQ(graph.steps[0].outputs, std::vector<int>{operand("b.channels_first")});
  EXPECT_EQ(graph.steps[1].inputs, std::vector<int>{operand("b.channels_first")});
  EXPECT_EQ(graph.steps[2].outputs, std::vector<int>{operand("d.channels_first")});
  EXPECT_EQ(graph.steps[3].outputs, std::vector<int>{operand("y")});
  // The steps keep their names; their descriptions say what runs now.
  EXPECT_EQ(graph.steps[1].name, "fc1");
  EXPECT_EQ(graph.steps[1].description.rfind("nn.Conv2d 'fc1'", 0), 0u)
      << graph.steps[1].description;
  // The renamed operands are channels-first; the file's ones say where they went.
  const LayerGraph::OperandInfo& renamed =
      graph.operands[static_cast<size_t>(operand("c.channels_first"))];
  EXPECT_EQ(renamed.annotated_shape, (std::vector<int>{1, 16, 5, 6}));
  EXPECT_EQ(renamed.producer, 1);
  for (const char* name : {"a", "b", "c", "d", "e"}) {
    const LayerGraph::OperandInfo& old = graph.operands[static_cast<size_t>(operand(name))];
    EXPECT_EQ(old.producer, -1) << name;
    EXPECT_FALSE(old.fused_into.empty()) << name;
  }
}

TEST(ChannelsFirstBlocks, KeepsTheResults) {
  ExpectPassesKeepTheResults(ParamText(ConvNextBlock()), VaryingInput({1, 8, 5, 6}));
}

TEST(ChannelsFirstBlocks, TakesEveryElementwiseActivationWhateverItsSpelling) {
  // The list of 19 names this pass once kept lacked these; the layers say what they are now.
  for (const std::string activation : {"torch.relu", "Tensor.sigmoid", "nn.ELU", "F.relu6"}) {
    std::vector<std::string> lines = ConvNextBlock();
    lines[4] = activation + " act 1 1 c d #d=(1,5,6,16)f32";
    LayerGraph graph = BuildLayerGraph(ParamText(lines));
    EXPECT_EQ(RewriteChannelsLastBlocks(&graph), 1) << activation;
    ASSERT_EQ(graph.steps.size(), 4u) << activation;
    EXPECT_EQ(graph.steps[2].type, activation);
    ExpectPassesKeepTheResults(ParamText(lines), VaryingInput({1, 8, 5, 6}));
  }
}

TEST(ChannelsFirstBlocks, TakesAnOnnxStyleTranspose) {
  // The ONNX reader writes Transpose as torch.permute: any layer that only reorders dimensions.
  std::vector<std::string> lines = ConvNextBlock();
  lines[1] = "torch.permute p0 1 1 x a dims=(0,2,3,1) #a=(1,5,6,8)f32";
  lines[6] = "torch.permute p1 1 1 e y dims=(0,3,1,2) #y=(1,8,5,6)f32";
  LayerGraph graph = BuildLayerGraph(ParamText(lines));
  EXPECT_EQ(RewriteChannelsLastBlocks(&graph), 1);
}

TEST(ChannelsFirstBlocks, LeavesAloneWhatOthersCouldSee) {
  std::vector<std::string> read_twice = ConvNextBlock();
  read_twice.push_back("nn.ReLU other 1 1 c z #z=(1,5,6,16)f32");
  read_twice.push_back("pnnx.Output out2 1 0 z");
  ExpectPassLeavesAlone(RewriteChannelsLastBlocks, read_twice,
                        "an operand inside the chain that a second step reads");
  std::vector<std::string> output_inside = ConvNextBlock();
  output_inside.push_back("pnnx.Output out2 1 0 d");
  ExpectPassLeavesAlone(RewriteChannelsLastBlocks, output_inside,
                        "an operand inside the chain that is a graph output");
  EXPECT_EQ(StepTypes(BuildLayerGraph(ParamText(output_inside)).steps), kUnchanged);
}

TEST(ChannelsFirstBlocks, LeavesAloneWhatIsNotPerPixel) {
  std::vector<std::string> two_dimensions = ConvNextBlock();
  two_dimensions[2] =
      "nn.LayerNorm norm 1 1 a b elementwise_affine=True eps=1e-6 normalized_shape=(6,8) "
      "@weight=(6,8)f32 @bias=(6,8)f32 #b=(1,5,6,8)f32";
  ExpectPassLeavesAlone(RewriteChannelsLastBlocks, two_dimensions,
                        "a LayerNorm over two dimensions");
  std::vector<std::string> other_order = ConvNextBlock();
  other_order[6] = "Tensor.permute p1 1 1 e y dims=(0,3,2,1) #y=(1,8,6,5)f32";
  ExpectPassLeavesAlone(RewriteChannelsLastBlocks, other_order,
                        "a closing permute to another order");
  std::vector<std::string> softmax = ConvNextBlock();
  softmax[4] = "nn.Softmax act 1 1 c d dim=-1 #d=(1,5,6,16)f32";
  ExpectPassLeavesAlone(RewriteChannelsLastBlocks, softmax, "a layer in between that mixes values");
  std::vector<std::string> no_closing = ConvNextBlock();
  no_closing[6] = "nn.ReLU p1 1 1 e y #y=(1,5,6,8)f32";
  ExpectPassLeavesAlone(RewriteChannelsLastBlocks, no_closing, "a chain that never permutes back");
}

}  // namespace
}  // namespace test_support
}  // namespace lumen
