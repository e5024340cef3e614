// FuseActivations on hand-written graphs: an activation that is the only reader of a convolution's
// output runs inside the convolution, and the result stays the same; an activation after a value
// that others see too, or after a layer that declines, stays a step of its own.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "passes/pass_testing.hpp"
#include "passes/passes.hpp"

namespace lumen {
namespace test_support {
namespace {

// x (1,3,6,7) -> 3x3 convolution -> `activation` -> y.
std::vector<std::string> ConvolutionThen(const std::string& activation) {
  return {"pnnx.Input in 0 1 x #x=(1,3,6,7)f32",
          "nn.Conv2d conv 1 1 x c bias=True dilation=(1,1) groups=1 in_channels=3 "
          "kernel_size=(3,3) out_channels=4 padding=(1,1) padding_mode=zeros stride=(1,1) "
          "@bias=(4)f32 @weight=(4,3,3,3)f32 #c=(1,4,6,7)f32",
          activation + " act 1 1 c y #y=(1,4,6,7)f32", "pnnx.Output out 1 0 y"};
}

TEST(ActivationFusion, FusesAnActivationIntoTheConvolutionBeforeIt) {
  for (const std::string activation : {"nn.ReLU", "F.silu", "torch.sigmoid", "nn.GELU"}) {
    LayerGraph graph = BuildLayerGraph(ParamText(ConvolutionThen(activation)));
    ASSERT_EQ(FuseActivations(&graph), 1) << activation;
    ASSERT_EQ(StepTypes(graph.steps), std::vector<std::string>{"nn.Conv2d"});
    const LayerGraph::Step& convolution = graph.steps[0];
    EXPECT_EQ(convolution.outputs, std::vector<int>{OperandIndex(graph, "y")});
    ASSERT_EQ(convolution.fused.size(), 1u);
    EXPECT_EQ(convolution.fused[0].rfind(activation + " 'act'", 0), 0u) << convolution.fused[0];
    const LayerGraph::OperandInfo& middle =
        graph.operands[static_cast<size_t>(OperandIndex(graph, "c"))];
    EXPECT_EQ(middle.producer, -1);
    EXPECT_FALSE(middle.fused_into.empty());
    ExpectPassesKeepTheResults(ParamText(ConvolutionThen(activation)), VaryingInput({1, 3, 6, 7}));
  }
}

TEST(ActivationFusion, LeavesAloneWhatOthersSeeOrALayerDeclines) {
  std::vector<std::string> output = ConvolutionThen("nn.ReLU");
  output.push_back("pnnx.Output out2 1 0 c");
  ExpectPassLeavesAlone(FuseActivations, output, "the convolution's output is a graph output");
  std::vector<std::string> read_again = ConvolutionThen("nn.ReLU");
  read_again.insert(read_again.end() - 1, "nn.Tanh other 1 1 c z #z=(1,4,6,7)f32");
  read_again.push_back("pnnx.Output out2 1 0 z");
  ExpectPassLeavesAlone(FuseActivations, read_again,
                        "a second step reads the convolution's output");
  std::vector<std::string> softmax = ConvolutionThen("nn.Softmax");
  softmax[2] = "nn.Softmax act 1 1 c y dim=1 #y=(1,4,6,7)f32";
  ExpectPassLeavesAlone(FuseActivations, softmax, "not an elementwise activation");
  ExpectPassLeavesAlone(FuseActivations,
                        {"pnnx.Input in 0 1 x #x=(1,3,6,7)f32",
                         "pnnx.Expression scale 1 1 x s expr=mul(@0,2) #s=(1,3,6,7)f32",
                         "nn.ReLU act 1 1 s y #y=(1,3,6,7)f32", "pnnx.Output out 1 0 y"},
                        "a layer that declines");
}

TEST(ActivationFusion, FusesOneActivationPerLayer) {
  // The convolution takes the ReLU, then declines the Tanh after it.
  std::vector<std::string> lines = ConvolutionThen("nn.ReLU");
  lines.insert(lines.end() - 1, "nn.Tanh tanh 1 1 y z #z=(1,4,6,7)f32");
  lines.back() = "pnnx.Output out 1 0 z";
  LayerGraph graph = BuildLayerGraph(ParamText(lines));
  EXPECT_EQ(FuseActivations(&graph), 1);
  EXPECT_EQ(FuseActivations(&graph), 0);
  EXPECT_EQ(StepTypes(graph.steps), (std::vector<std::string>{"nn.Conv2d", "nn.Tanh"}));
  ExpectPassesKeepTheResults(ParamText(lines), VaryingInput({1, 3, 6, 7}));
}

}  // namespace
}  // namespace test_support
}  // namespace lumen
