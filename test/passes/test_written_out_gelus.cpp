// FuseWrittenOutGelus on hand-written graphs: the erf chain torch.onnx.export writes for nn.GELU
// becomes one nn.GELU computing what it did; a chain something else could observe, or with other
// numbers, is left alone. That fused ONNX models compute PyTorch's numbers is the golden cases'
// job (tmp/onnx/gelu, convnext_blocks, vit_d96_p8).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "passes/pass_testing.hpp"
#include "passes/passes.hpp"

namespace lumen {
namespace test_support {
namespace {

// x (2,6) -> x * (erf(x / sqrt(2)) + 1) * 0.5 -> y, in five steps. Line k + 1 is operator k.
std::vector<std::string> WrittenOutGelu() {
  return {
      "pnnx.Input in 0 1 x #x=(2,6)f32",
      "pnnx.Expression div 1 1 x u expr=div(@0,1.414214e+00) #u=(2,6)f32",
      "pnnx.Expression erf 1 1 u e expr=erf(@0) #e=(2,6)f32",
      "pnnx.Expression add 1 1 e a expr=add(@0,1.000000e+00) #a=(2,6)f32",
      "pnnx.Expression mul 2 1 x a m expr=mul(@0,@1) #m=(2,6)f32",
      "pnnx.Expression half 1 1 m y expr=mul(@0,5.000000e-01) #y=(2,6)f32",
      "pnnx.Output out 1 0 y",
  };
}

TEST(WrittenOutGelus, FusesTheChain) {
  LayerGraph graph = BuildLayerGraph(ParamText(WrittenOutGelu()));
  ASSERT_EQ(FuseWrittenOutGelus(&graph), 1);
  EXPECT_EQ(StepTypes(graph.steps), std::vector<std::string>{"nn.GELU"});
  EXPECT_EQ(graph.steps[0].inputs, std::vector<int>{OperandIndex(graph, "x")});
  EXPECT_EQ(graph.steps[0].outputs, std::vector<int>{OperandIndex(graph, "y")});
  EXPECT_EQ(graph.steps[0].fused.size(), 4u);
}

TEST(WrittenOutGelus, KeepsTheResults) {
  ExpectPassesKeepTheResults(ParamText(WrittenOutGelu()), VaryingInput({2, 6}));
}

TEST(WrittenOutGelus, TakesTheOtherSpellings) {
  std::vector<std::string> lines = WrittenOutGelu();
  lines[1] = "pnnx.Expression div 1 1 x u expr=mul(7.071068e-01,@0) #u=(2,6)f32";
  lines[3] = "pnnx.Expression add 1 1 e a expr=add(1.000000e+00,@0) #a=(2,6)f32";
  lines[4] = "pnnx.Expression mul 2 1 a x m expr=mul(@0,@1) #m=(2,6)f32";
  LayerGraph graph = BuildLayerGraph(ParamText(lines));
  EXPECT_EQ(FuseWrittenOutGelus(&graph), 1);
}

TEST(WrittenOutGelus, LeavesAloneWhatOthersCouldSeeAndOtherNumbers) {
  std::vector<std::string> second_reader = WrittenOutGelu();
  second_reader.push_back("nn.ReLU other 1 1 e z #z=(2,6)f32");
  second_reader.push_back("pnnx.Output out2 1 0 z");
  ExpectPassLeavesAlone(FuseWrittenOutGelus, second_reader, "erf read by a second step");
  std::vector<std::string> output_inside = WrittenOutGelu();
  output_inside.push_back("pnnx.Output out2 1 0 m");
  ExpectPassLeavesAlone(FuseWrittenOutGelus, output_inside, "an operand that is a graph output");
  std::vector<std::string> other_divisor = WrittenOutGelu();
  other_divisor[1] = "pnnx.Expression div 1 1 x u expr=div(@0,1.5) #u=(2,6)f32";
  ExpectPassLeavesAlone(FuseWrittenOutGelus, other_divisor, "a divisor other than sqrt(2)");
  std::vector<std::string> other_input = WrittenOutGelu();
  other_input[0] = "pnnx.Input in 0 1 x #x=(2,6)f32";
  other_input.insert(other_input.begin() + 1, "pnnx.Input in1 0 1 w #w=(2,6)f32");
  other_input[5] = "pnnx.Expression mul 2 1 w a m expr=mul(@0,@1) #m=(2,6)f32";
  ExpectPassLeavesAlone(FuseWrittenOutGelus, other_input, "another tensor times the erf term");
}

}  // namespace
}  // namespace test_support
}  // namespace lumen
