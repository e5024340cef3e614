// FuseGatedActivations on hand-written graphs and on an ONNX export: x * sigmoid(x) becomes one
// nn.SiLU and x * hardsigmoid(x) one nn.Hardswish, whichever way the file spells the gate and the
// product, and still computes the same; a product that is not such a gate is left alone.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lumen/model.hpp"
#include "passes/pass_testing.hpp"
#include "passes/passes.hpp"
#include "runtime/model_internals.hpp"
#include "runtime/runtime_graph.hpp"
#include "support/source_directory.hpp"

namespace lumen {
namespace test_support {
namespace {

// x -> gate(x) -> product of x and the gate (`expression` over `inputs`, e.g. "x g") -> y.
std::vector<std::string> GatedLines(const std::string& gate, const std::string& expression,
                                    const std::string& inputs = "x g") {
  return {"pnnx.Input in 0 1 x #x=(1,4,5,6)f32", gate + " gate 1 1 x g #g=(1,4,5,6)f32",
          "pnnx.Expression product 2 1 " + inputs + " y expr=" + expression + " #y=(1,4,5,6)f32",
          "pnnx.Output out 1 0 y"};
}

TEST(GatedActivations, MakesOneSiluOfXTimesSigmoidOfX) {
  LayerGraph graph = BuildLayerGraph(ParamText(GatedLines("nn.Sigmoid", "mul(@0,@1)")));
  ASSERT_EQ(FuseGatedActivations(&graph), 1);
  ASSERT_EQ(StepTypes(graph.steps), std::vector<std::string>{"nn.SiLU"});
  const LayerGraph::Step& silu = graph.steps[0];
  EXPECT_EQ(silu.name, "product");
  EXPECT_EQ(silu.description.rfind("nn.SiLU 'product'", 0), 0u) << silu.description;
  EXPECT_EQ(silu.inputs, std::vector<int>{OperandIndex(graph, "x")});
  EXPECT_EQ(silu.outputs, std::vector<int>{OperandIndex(graph, "y")});
  const LayerGraph::OperandInfo& gate =
      graph.operands[static_cast<size_t>(OperandIndex(graph, "g"))];
  EXPECT_EQ(gate.producer, -1);
  EXPECT_FALSE(gate.fused_into.empty());
}

TEST(GatedActivations, TakesEverySpellingOfTheGateAndTheProduct) {
  struct Case {
    const char* gate;
    const char* expression;
    const char* inputs;
    const char* fused;
  };
  for (const Case& c : {Case{"nn.Sigmoid", "mul(@1,@0)", "g x", "nn.SiLU"},
                        Case{"F.sigmoid", "mul(@0,@1)", "x g", "nn.SiLU"},
                        Case{"torch.sigmoid", "mul(@1,@0)", "x g", "nn.SiLU"},
                        Case{"Tensor.sigmoid", "mul(@0,@1)", "g x", "nn.SiLU"},
                        Case{"nn.Hardsigmoid", "mul(@0,@1)", "x g", "nn.Hardswish"},
                        Case{"F.hardsigmoid", "mul(@0,@1)", "g x", "nn.Hardswish"}}) {
    const std::string text = ParamText(GatedLines(c.gate, c.expression, c.inputs));
    LayerGraph graph = BuildLayerGraph(text);
    EXPECT_EQ(FuseGatedActivations(&graph), 1) << c.gate << " " << c.expression << " " << c.inputs;
    EXPECT_EQ(StepTypes(graph.steps), std::vector<std::string>{c.fused}) << c.gate;
    ExpectPassesKeepTheResults(text, VaryingInput({1, 4, 5, 6}));
  }
}

TEST(GatedActivations, LeavesAloneWhatIsNotAGate) {
  ExpectPassLeavesAlone(FuseGatedActivations, GatedLines("nn.ReLU", "mul(@0,@1)"),
                        "another activation as the gate");
  ExpectPassLeavesAlone(FuseGatedActivations, GatedLines("nn.SiLU", "mul(@0,@1)"),
                        "an activation with no gated form");
  ExpectPassLeavesAlone(FuseGatedActivations, GatedLines("nn.Sigmoid", "add(@0,@1)"), "a sum");
  ExpectPassLeavesAlone(FuseGatedActivations, GatedLines("nn.Sigmoid", "mul(mul(@0,@1),2)"),
                        "a product with more in it");
  ExpectPassLeavesAlone(FuseGatedActivations, GatedLines("nn.Sigmoid", "add(mul(@0,@1),@0)"),
                        "a product plus x");
  ExpectPassLeavesAlone(FuseGatedActivations, GatedLines("nn.Sigmoid", "mul(@0,@1)", "g g"),
                        "the gate times itself");
  // Squeeze-and-excitation: x times a gate of something else than x.
  ExpectPassLeavesAlone(
      FuseGatedActivations,
      {"pnnx.Input in 0 1 x #x=(1,4,5,6)f32", "nn.ReLU relu 1 1 x r #r=(1,4,5,6)f32",
       "nn.Sigmoid gate 1 1 r g #g=(1,4,5,6)f32",
       "pnnx.Expression product 2 1 x g y expr=mul(@0,@1) #y=(1,4,5,6)f32",
       "pnnx.Output out 1 0 y"},
      "a gate of another operand");
}

TEST(GatedActivations, LeavesAloneAGateThatOthersSee) {
  std::vector<std::string> output = GatedLines("nn.Sigmoid", "mul(@0,@1)");
  output.push_back("pnnx.Output out2 1 0 g");
  ExpectPassLeavesAlone(FuseGatedActivations, output, "a gate that is a graph output");
  std::vector<std::string> read_again = GatedLines("nn.Sigmoid", "mul(@0,@1)");
  read_again.insert(read_again.end() - 1, "nn.ReLU relu 1 1 g r #r=(1,4,5,6)f32");
  read_again.push_back("pnnx.Output out2 1 0 r");
  ExpectPassLeavesAlone(FuseGatedActivations, read_again, "a gate that a second step reads");
}

TEST(GatedActivations, RunsOnOnnxModelsToo) {
  // torch.onnx.export writes nn.SiLU as Sigmoid and Mul, and nn.Hardswish (before opset 14) as
  // HardSigmoid and Mul: the ONNX reader keeps them, the pass makes one layer of each.
  const std::string path = SourceDirectory() + "/test/data/onnx/gated_activations/model.onnx";
  ModelOptions without_passes;
  without_passes.fuse = false;
  EXPECT_EQ(StepTypes(ModelInternals::Graph(*Model::Load(path, without_passes)).steps()),
            (std::vector<std::string>{"nn.Sigmoid", "pnnx.Expression", "nn.Hardsigmoid",
                                      "pnnx.Expression"}));
  EXPECT_EQ(StepTypes(ModelInternals::Graph(*Model::Load(path)).steps()),
            (std::vector<std::string>{"nn.SiLU", "nn.Hardswish"}));
}

}  // namespace
}  // namespace test_support
}  // namespace lumen
