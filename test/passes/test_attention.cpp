// FuseAttention on hand-written graphs: Q @ K^T -> scale -> softmax -> @ V, as ONNX exports write
// attention, becomes one lumen.ScaledDotProductAttention computing what the chain did (on the
// attention kernel, and in plain loops when V has another depth); every chain something else
// could observe, with a softmax along another dimension or a scale that is not a number, is left
// alone. That fused ONNX transformers compute PyTorch's numbers is the golden cases' job
// (tmp/onnx/vit_d96_p8, attention_manual, dynamic_encoder_*).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "passes/pass_testing.hpp"
#include "passes/passes.hpp"

namespace lumen {
namespace test_support {
namespace {

// Self-attention of x (3,7,4) over itself: Q = K = x, V = x (or x projected to 5 features when
// `value_features` is 5). Line k + 1 is operator k.
std::vector<std::string> Attention(int value_features = 4) {
  const std::string v = value_features == 4 ? "x" : "v";
  std::vector<std::string> lines = {
      "pnnx.Input in 0 1 x #x=(3,7,4)f32",
      "torch.permute t 1 1 x kt dims=(0,2,1) #kt=(3,4,7)f32",
      "torch.matmul mm1 2 1 x kt s #s=(3,7,7)f32",
      "pnnx.Expression scale 1 1 s s2 expr=div(@0,2.000000e+00) #s2=(3,7,7)f32",
      "nn.Softmax sm 1 1 s2 p dim=-1 #p=(3,7,7)f32",
      "torch.matmul mm2 2 1 p " + v + " y #y=(3,7," + std::to_string(value_features) + ")f32",
      "pnnx.Output out 1 0 y",
  };
  if (value_features != 4) {
    lines.insert(lines.begin() + 1,
                 "nn.Linear proj 1 1 x v bias=False in_features=4 out_features=5 "
                 "@weight=(5,4)f32 #v=(3,7,5)f32");
  }
  return lines;
}

TEST(Attention, FusesTheChain) {
  LayerGraph graph = BuildLayerGraph(ParamText(Attention()));
  ASSERT_EQ(FuseAttention(&graph), 1);
  EXPECT_EQ(StepTypes(graph.steps), std::vector<std::string>{"lumen.ScaledDotProductAttention"});
  const int x = OperandIndex(graph, "x");
  EXPECT_EQ(graph.steps[0].inputs, (std::vector<int>{x, x, x}));
  EXPECT_EQ(graph.steps[0].outputs, std::vector<int>{OperandIndex(graph, "y")});
  EXPECT_EQ(graph.steps[0].fused.size(), 4u);
}

TEST(Attention, KeepsTheResults) {
  ExpectPassesKeepTheResults(ParamText(Attention()), VaryingInput({3, 7, 4}));
}

TEST(Attention, KeepsTheResultsOfValuesOfAnotherDepth) {
  const std::string text = ParamText(Attention(5));
  LayerGraph graph = BuildLayerGraph(text);
  EXPECT_EQ(FuseAttention(&graph), 1);
  ExpectPassesKeepTheResults(text, VaryingInput({3, 7, 4}));
}

TEST(Attention, TakesFourDimensionsAndNoScale) {
  std::vector<std::string> lines = {
      "pnnx.Input in 0 1 x #x=(2,3,5,4)f32",
      "torch.permute t 1 1 x kt dims=(0,1,3,2) #kt=(2,3,4,5)f32",
      "torch.matmul mm1 2 1 x kt s #s=(2,3,5,5)f32",
      "nn.Softmax sm 1 1 s p dim=-1 #p=(2,3,5,5)f32",
      "torch.matmul mm2 2 1 p x y #y=(2,3,5,4)f32",
      "pnnx.Output out 1 0 y",
  };
  LayerGraph graph = BuildLayerGraph(ParamText(lines));
  EXPECT_EQ(FuseAttention(&graph), 1);
  ExpectPassesKeepTheResults(ParamText(lines), VaryingInput({2, 3, 5, 4}));
}

TEST(Attention, LeavesAloneWhatOthersCouldSee) {
  std::vector<std::string> second_reader = Attention();
  second_reader.push_back("nn.ReLU other 1 1 s z #z=(3,7,7)f32");
  second_reader.push_back("pnnx.Output out2 1 0 z");
  ExpectPassLeavesAlone(FuseAttention, second_reader, "scores a second step reads");
  std::vector<std::string> output_inside = Attention();
  output_inside.push_back("pnnx.Output out2 1 0 p");
  ExpectPassLeavesAlone(FuseAttention, output_inside, "probabilities that are a graph output");
}

TEST(Attention, LeavesAloneOtherArithmetic) {
  std::vector<std::string> other_dim = Attention();
  other_dim[4] = "nn.Softmax sm 1 1 s2 p dim=1 #p=(3,7,7)f32";
  ExpectPassLeavesAlone(FuseAttention, other_dim, "a softmax along another dimension");
  std::vector<std::string> operand_scale = Attention();
  operand_scale.insert(operand_scale.begin() + 1, "pnnx.Attribute c 0 1 c @data=(1)f32 #c=(1)f32");
  operand_scale[4] = "pnnx.Expression scale 2 1 s c s2 expr=mul(@0,@1) #s2=(3,7,7)f32";
  ExpectPassLeavesAlone(FuseAttention, operand_scale, "a scale that is an operand");
  std::vector<std::string> reciprocal = Attention();
  reciprocal[3] = "pnnx.Expression scale 1 1 s s2 expr=div(2.000000e+00,@0) #s2=(3,7,7)f32";
  ExpectPassLeavesAlone(FuseAttention, reciprocal, "a number divided by the scores");
}

TEST(Attention, TakesKeysTransposedAnotherWay) {
  // As nn.MultiheadAttention exports: Q and V (L, N*H, d) -> (N*H, L, d), K straight to (N*H, d,
  // L).
  std::vector<std::string> lines = {
      "pnnx.Input in 0 1 x #x=(7,3,4)f32",
      "torch.permute tq 1 1 x q dims=(1,0,2) #q=(3,7,4)f32",
      "torch.permute tk 1 1 x kt dims=(1,2,0) #kt=(3,4,7)f32",
      "torch.matmul mm1 2 1 q kt s #s=(3,7,7)f32",
      "nn.Softmax sm 1 1 s p dim=-1 #p=(3,7,7)f32",
      "torch.matmul mm2 2 1 p q y #y=(3,7,4)f32",
      "pnnx.Output out 1 0 y",
  };
  LayerGraph graph = BuildLayerGraph(ParamText(lines));
  EXPECT_EQ(FuseAttention(&graph), 1);
  EXPECT_EQ(StepTypes(graph.steps), (std::vector<std::string>{"torch.permute", "torch.permute",
                                                              "lumen.ScaledDotProductAttention"}));
  ExpectPassesKeepTheResults(ParamText(lines), VaryingInput({7, 3, 4}));
}

}  // namespace
}  // namespace test_support
}  // namespace lumen
