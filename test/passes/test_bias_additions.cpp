// FuseBiasAdditions on hand-written graphs: nn.Linear without bias then + a stored vector (ONNX's
// MatMul + Add) becomes nn.Linear with that bias, and a GELU after it then fuses too; an addition
// something else could observe, of another shape or of an operand that is not stored, and a
// layer that already has a bias, are left alone.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "passes/pass_testing.hpp"
#include "passes/passes.hpp"

namespace lumen {
namespace test_support {
namespace {

// x (2,3,4) -> Linear 4->5 without bias -> + b (5) -> y. Line k + 1 is operator k.
std::vector<std::string> LinearThenBias() {
  return {
      "pnnx.Input in 0 1 x #x=(2,3,4)f32",
      "nn.Linear fc 1 1 x h bias=False in_features=4 out_features=5 @weight=(5,4)f32 "
      "#h=(2,3,5)f32",
      "pnnx.Attribute bias 0 1 b @data=(5)f32 #b=(5)f32",
      "pnnx.Expression add 2 1 h b y expr=add(@0,@1) #y=(2,3,5)f32",
      "pnnx.Output out 1 0 y",
  };
}

TEST(BiasAdditions, FusesTheBias) {
  LayerGraph graph = BuildLayerGraph(ParamText(LinearThenBias()));
  ASSERT_EQ(FuseBiasAdditions(&graph), 1);
  EXPECT_EQ(StepTypes(graph.steps), std::vector<std::string>{"nn.Linear"});
  EXPECT_EQ(graph.steps[0].outputs, std::vector<int>{OperandIndex(graph, "y")});
}

TEST(BiasAdditions, KeepsTheResultsWithAnActivationAfter) {
  std::vector<std::string> lines = LinearThenBias();
  lines[3] = "pnnx.Expression add 2 1 b h a expr=add(@0,@1) #a=(2,3,5)f32";
  lines.insert(lines.begin() + 4, "nn.GELU act 1 1 a y #y=(2,3,5)f32");
  ExpectPassesKeepTheResults(ParamText(lines), VaryingInput({2, 3, 4}));
  LayerGraph graph = BuildLayerGraph(ParamText(lines));
  EXPECT_EQ(FuseBiasAdditions(&graph), 1);
}

TEST(BiasAdditions, LeavesAloneWhatItMustNotTake) {
  std::vector<std::string> second_reader = LinearThenBias();
  second_reader.push_back("nn.ReLU other 1 1 h z #z=(2,3,5)f32");
  second_reader.push_back("pnnx.Output out2 1 0 z");
  ExpectPassLeavesAlone(FuseBiasAdditions, second_reader, "an output a second step reads");
  std::vector<std::string> matrix = LinearThenBias();
  matrix[2] = "pnnx.Attribute bias 0 1 b @data=(1,5)f32 #b=(1,5)f32";
  ExpectPassLeavesAlone(FuseBiasAdditions, matrix, "an addend of rank 2");
  std::vector<std::string> input = LinearThenBias();
  input[2] = "pnnx.Input in1 0 1 b #b=(5)f32";
  ExpectPassLeavesAlone(FuseBiasAdditions, input, "an addend that is an input");
  std::vector<std::string> has_bias = LinearThenBias();
  has_bias[1] =
      "nn.Linear fc 1 1 x h bias=True in_features=4 out_features=5 @weight=(5,4)f32 "
      "@bias=(5)f32 #h=(2,3,5)f32";
  ExpectPassLeavesAlone(FuseBiasAdditions, has_bias, "a Linear that has a bias");
}

}  // namespace
}  // namespace test_support
}  // namespace lumen
