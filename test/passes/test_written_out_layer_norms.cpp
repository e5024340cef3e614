// FuseWrittenOutLayerNorms on hand-written graphs: the chain torch.onnx.export writes for
// nn.LayerNorm below opset 17 (as the ONNX reader maps it) becomes one nn.LayerNorm computing what
// the chain did; every chain something else could observe, over other dimensions, or with an eps,
// weight or bias that is not a constant, is left alone. That the fused ONNX models compute
// PyTorch's numbers is the golden cases' job (tmp/onnx/convnext_blocks, channels_last_layernorm).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "passes/pass_testing.hpp"
#include "passes/passes.hpp"

namespace lumen {
namespace test_support {
namespace {

// x (2,5,8) -> LayerNorm(8) written out as nine steps -> y. Line k + 1 is operator k.
std::vector<std::string> WrittenOutLayerNorm() {
  return {
      "pnnx.Input in 0 1 x #x=(2,5,8)f32",
      "torch.mean mean 1 1 x m dim=(-1) keepdim=True #m=(2,5,1)f32",
      "pnnx.Expression sub 2 1 x m d expr=sub(@0,@1) #d=(2,5,8)f32",
      "pnnx.Expression pow 1 1 d s expr=pow(@0,2.000000e+00) #s=(2,5,8)f32",
      "torch.mean mean2 1 1 s v dim=(-1) keepdim=True #v=(2,5,1)f32",
      "pnnx.Expression add 1 1 v e expr=add(@0,1.000000e-05) #e=(2,5,1)f32",
      "pnnx.Expression sqrt 1 1 e r expr=sqrt(@0) #r=(2,5,1)f32",
      "pnnx.Expression div 2 1 d r n expr=div(@0,@1) #n=(2,5,8)f32",
      "pnnx.Attribute weight 0 1 w @data=(8)f32 #w=(8)f32",
      "pnnx.Expression mul 2 1 n w o expr=mul(@0,@1) #o=(2,5,8)f32",
      "pnnx.Attribute bias 0 1 b @data=(8)f32 #b=(8)f32",
      "pnnx.Expression add2 2 1 o b y expr=add(@0,@1) #y=(2,5,8)f32",
      "pnnx.Output out 1 0 y",
  };
}

TEST(WrittenOutLayerNorms, FusesTheChain) {
  LayerGraph graph = BuildLayerGraph(ParamText(WrittenOutLayerNorm()));
  ASSERT_EQ(FuseWrittenOutLayerNorms(&graph), 1);
  EXPECT_EQ(StepTypes(graph.steps), std::vector<std::string>{"nn.LayerNorm"});
  EXPECT_EQ(graph.steps[0].inputs, std::vector<int>{OperandIndex(graph, "x")});
  EXPECT_EQ(graph.steps[0].outputs, std::vector<int>{OperandIndex(graph, "y")});
  EXPECT_EQ(graph.steps[0].fused.size(), 8u);
  for (const char* name : {"m", "d", "s", "v", "e", "r", "n", "o", "w", "b"}) {
    EXPECT_FALSE(graph.operands[static_cast<size_t>(OperandIndex(graph, name))].fused_into.empty())
        << name;
  }
}

TEST(WrittenOutLayerNorms, KeepsTheResults) {
  ExpectPassesKeepTheResults(ParamText(WrittenOutLayerNorm()), VaryingInput({2, 5, 8}));
}

TEST(WrittenOutLayerNorms, TakesPositiveTrailingDimsAndOperandsInEitherOrder) {
  std::vector<std::string> lines = WrittenOutLayerNorm();
  lines[1] = "torch.mean mean 1 1 x m dim=(2) keepdim=True #m=(2,5,1)f32";
  lines[4] = "torch.mean mean2 1 1 s v dim=(2) keepdim=True #v=(2,5,1)f32";
  lines[3] = "pnnx.Expression pow 1 1 d s expr=mul(@0,@0) #s=(2,5,8)f32";
  lines[5] = "pnnx.Expression add 1 1 v e expr=add(1.000000e-05,@0) #e=(2,5,1)f32";
  lines[9] = "pnnx.Expression mul 2 1 w n o expr=mul(@1,@0) #o=(2,5,8)f32";
  LayerGraph graph = BuildLayerGraph(ParamText(lines));
  EXPECT_EQ(FuseWrittenOutLayerNorms(&graph), 1);
  ExpectPassesKeepTheResults(ParamText(lines), VaryingInput({2, 5, 8}));
}

TEST(WrittenOutLayerNorms, LeavesAloneWhatOthersCouldSee) {
  std::vector<std::string> second_reader = WrittenOutLayerNorm();
  second_reader.push_back("nn.ReLU other 1 1 r z #z=(2,5,1)f32");
  second_reader.push_back("pnnx.Output out2 1 0 z");
  ExpectPassLeavesAlone(FuseWrittenOutLayerNorms, second_reader,
                        "an intermediate operand a second step reads");
  std::vector<std::string> third_reader = WrittenOutLayerNorm();
  third_reader.push_back("nn.ReLU other 1 1 d z #z=(2,5,8)f32");
  third_reader.push_back("pnnx.Output out2 1 0 z");
  ExpectPassLeavesAlone(FuseWrittenOutLayerNorms, third_reader, "x - mean read by a third step");
  std::vector<std::string> output_inside = WrittenOutLayerNorm();
  output_inside.push_back("pnnx.Output out2 1 0 n");
  ExpectPassLeavesAlone(FuseWrittenOutLayerNorms, output_inside,
                        "an intermediate operand that is a graph output");
}

TEST(WrittenOutLayerNorms, LeavesAloneOtherDimensions) {
  std::vector<std::string> middle = WrittenOutLayerNorm();
  middle[1] = "torch.mean mean 1 1 x m dim=(1) keepdim=True #m=(2,1,8)f32";
  middle[4] = "torch.mean mean2 1 1 s v dim=(1) keepdim=True #v=(2,1,8)f32";
  ExpectPassLeavesAlone(FuseWrittenOutLayerNorms, middle, "a mean over a non-trailing axis");
  std::vector<std::string> mismatched = WrittenOutLayerNorm();
  mismatched[4] = "torch.mean mean2 1 1 s v dim=(1,2) keepdim=True #v=(2,1,1)f32";
  ExpectPassLeavesAlone(FuseWrittenOutLayerNorms, mismatched, "means over different dims");
  std::vector<std::string> dropped = WrittenOutLayerNorm();
  dropped[4] = "torch.mean mean2 1 1 s v dim=(-1) keepdim=False #v=(2,5)f32";
  ExpectPassLeavesAlone(FuseWrittenOutLayerNorms, dropped, "a mean without keepdim");
}

TEST(WrittenOutLayerNorms, LeavesAloneWhatIsNotConstant) {
  std::vector<std::string> eps_operand = WrittenOutLayerNorm();
  eps_operand[0] = "pnnx.Input in 0 1 x #x=(2,5,8)f32";
  eps_operand.insert(eps_operand.begin() + 1, "pnnx.Input in1 0 1 eps #eps=(1)f32");
  eps_operand[6] = "pnnx.Expression add 2 1 v eps e expr=add(@0,@1) #e=(2,5,1)f32";
  ExpectPassLeavesAlone(FuseWrittenOutLayerNorms, eps_operand, "an eps that is an input");
  std::vector<std::string> weight_input = WrittenOutLayerNorm();
  weight_input[8] = "pnnx.Input in1 0 1 w #w=(8)f32";
  ExpectPassLeavesAlone(FuseWrittenOutLayerNorms, weight_input, "a weight that is an input");
  std::vector<std::string> wide_bias = WrittenOutLayerNorm();
  wide_bias[10] = "pnnx.Attribute bias 0 1 b @data=(5,8)f32 #b=(5,8)f32";
  ExpectPassLeavesAlone(FuseWrittenOutLayerNorms, wide_bias, "a bias of another shape");
  std::vector<std::string> other_power = WrittenOutLayerNorm();
  other_power[3] = "pnnx.Expression pow 1 1 d s expr=pow(@0,3) #s=(2,5,8)f32";
  ExpectPassLeavesAlone(FuseWrittenOutLayerNorms, other_power, "a cube in place of the square");
}

}  // namespace
}  // namespace test_support
}  // namespace lumen
