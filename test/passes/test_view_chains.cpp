// JoinViewChains on hand-written graphs: runs of permutes, slices and reshapes, each the only
// reader of the one before, become one lumen.ViewChain computing what the run did, as one gather
// when the views compose and link by link when a reshape of a permuted view needs a copy; views
// something else reads, and single views, are left alone. That the chains ONNX transformers make
// compute PyTorch's numbers is the golden cases' job (tmp/onnx/vit_d96_p8, the dynamic encoders).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "passes/pass_testing.hpp"
#include "passes/passes.hpp"

namespace lumen {
namespace test_support {
namespace {

// An attention head split as ONNX writes it: x (7,1,24) -> x[..., 8:16] -> (7,2,4) -> (2,7,4),
// then merged back: (2,7,4) -> (7,2,4) -> (7,8). `shared` makes the slice's output a graph output
// too, so that it must be written.
std::vector<std::string> HeadSplit(bool shared = false) {
  return {
      "pnnx.Input in 0 1 x #x=(7,1,24)f32",
      "Tensor.slice slice 1 1 x q dim=2 start=8 end=16 step=1 #q=(7,1,8)f32",
      "Tensor.reshape split 1 1 q heads shape=(7,2,4) #heads=(7,2,4)f32",
      "torch.permute first 1 1 heads h dims=(1,0,2) #h=(2,7,4)f32",
      "nn.ReLU relu 1 1 h r #r=(2,7,4)f32",
      "torch.permute back 1 1 r b dims=(1,0,2) #b=(7,2,4)f32",
      "Tensor.reshape merge 1 1 b y shape=(7,8) #y=(7,8)f32",
      shared ? "pnnx.Output out 2 0 y q" : "pnnx.Output out 1 0 y",
  };
}

TEST(ViewChains, JoinsEachRunOfViews) {
  LayerGraph graph = BuildLayerGraph(ParamText(HeadSplit()));
  ASSERT_EQ(JoinViewChains(&graph), 2);
  EXPECT_EQ(StepTypes(graph.steps),
            (std::vector<std::string>{"lumen.ViewChain", "nn.ReLU", "lumen.ViewChain"}));
  EXPECT_EQ(graph.steps[0].inputs, std::vector<int>{OperandIndex(graph, "x")});
  EXPECT_EQ(graph.steps[0].outputs, std::vector<int>{OperandIndex(graph, "h")});
  EXPECT_EQ(graph.steps[0].fused.size(), 3u);
  EXPECT_EQ(graph.steps[2].outputs, std::vector<int>{OperandIndex(graph, "y")});
}

TEST(ViewChains, KeepTheResults) {
  ExpectPassesKeepTheResults(ParamText(HeadSplit()), VaryingInput({7, 1, 24}));
}

TEST(ViewChains, LeaveAloneViewsOthersRead) {
  // The slice's output is the caller's: the chain starts after it.
  LayerGraph graph = BuildLayerGraph(ParamText(HeadSplit(true)));
  ASSERT_EQ(JoinViewChains(&graph), 2);
  EXPECT_EQ(StepTypes(graph.steps), (std::vector<std::string>{"Tensor.slice", "lumen.ViewChain",
                                                              "nn.ReLU", "lumen.ViewChain"}));
  ExpectPassLeavesAlone(JoinViewChains,
                        {"pnnx.Input in 0 1 x #x=(7,8)f32",
                         "torch.permute t 1 1 x y dims=(1,0) #y=(8,7)f32", "pnnx.Output out 1 0 y"},
                        "a single view");
}

TEST(ViewChains, RunLinkByLinkWhenAReshapeNeedsACopy) {
  // (4,6) -> permute (6,4) -> reshape (24): the permuted elements are not evenly spaced, so the
  // chain cannot be one gather and runs its links in turn.
  const std::string text = ParamText({
      "pnnx.Input in 0 1 x #x=(4,6)f32",
      "torch.permute t 1 1 x p dims=(1,0) #p=(6,4)f32",
      "Tensor.reshape flat 1 1 p y shape=(24) #y=(24)f32",
      "pnnx.Output out 1 0 y",
  });
  LayerGraph graph = BuildLayerGraph(text);
  ASSERT_EQ(JoinViewChains(&graph), 1);
  ExpectPassesKeepTheResults(text, VaryingInput({4, 6}));
}

}  // namespace
}  // namespace test_support
}  // namespace lumen
