// RewriteChannelsLastBlocks on hand-built graphs: a ConvNeXt block's chain is turned channels-first
// (permutes gone, LayerNorm over channels, Linear as a 1x1 convolution, operands renamed and
// reshaped), and every chain that something else could observe is left alone. That the rewritten
// model still computes PyTorch's numbers is the convnext_blocks case's job.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/channels_first_blocks.hpp"

namespace lumen {
namespace {

Node MakeNode(const std::string& type, const std::string& name, const std::string& input,
              const std::string& output, const std::map<std::string, std::string>& params = {}) {
  Node node;
  node.type = type;
  node.name = name;
  node.input_names = {input};
  node.output_names = {output};
  for (const auto& [key, text] : params) node.params[key] = Parameter::Parse(text);
  return node;
}

Attribute Weight(std::vector<int> shape) {
  Attribute attribute;
  attribute.type = DataType::kFloat32;
  attribute.shape = std::move(shape);
  attribute.data.resize(attribute.DeclaredByteCount());
  return attribute;
}

// x (1,8,5,6) -> permute -> LayerNorm(8) -> Linear 8->16 -> GELU -> Linear 16->8 -> permute -> y.
Graph ConvNextBlock() {
  Graph graph;
  graph.nodes.push_back(MakeNode("Tensor.permute", "p0", "x", "a", {{"dims", "(0,2,3,1)"}}));
  graph.nodes.push_back(
      MakeNode("nn.LayerNorm", "norm", "a", "b", {{"normalized_shape", "(8)"}, {"eps", "1e-6"}}));
  graph.nodes.back().attributes["weight"] = Weight({8});
  graph.nodes.back().attributes["bias"] = Weight({8});
  graph.nodes.push_back(MakeNode("nn.Linear", "fc1", "b", "c",
                                 {{"in_features", "8"}, {"out_features", "16"}, {"bias", "True"}}));
  graph.nodes.back().attributes["weight"] = Weight({16, 8});
  graph.nodes.back().attributes["bias"] = Weight({16});
  graph.nodes.push_back(MakeNode("nn.GELU", "act", "c", "d"));
  graph.nodes.push_back(
      MakeNode("nn.Linear", "fc2", "d", "e",
               {{"in_features", "16"}, {"out_features", "8"}, {"bias", "False"}}));
  graph.nodes.back().attributes["weight"] = Weight({8, 16});
  graph.nodes.push_back(MakeNode("Tensor.permute", "p1", "e", "y", {{"dims", "(0,3,1,2)"}}));
  graph.operands = {{"x", {1, 8, 5, 6}},  {"a", {1, 5, 6, 8}},  {"b", {1, 5, 6, 8}},
                    {"c", {1, 5, 6, 16}}, {"d", {1, 5, 6, 16}}, {"e", {1, 5, 6, 8}},
                    {"y", {1, 8, 5, 6}}};
  graph.input_names = {"x"};
  graph.output_names = {"y"};
  return graph;
}

TEST(ChannelsFirstBlocks, RewritesAConvNextBlock) {
  Graph graph = ConvNextBlock();
  ASSERT_EQ(RewriteChannelsLastBlocks(&graph), 1);
  ASSERT_EQ(graph.nodes.size(), 4u);
  EXPECT_EQ(graph.nodes[0].type, "lumen.ChannelLayerNorm");
  EXPECT_EQ(graph.nodes[1].type, "nn.Conv2d");
  EXPECT_EQ(graph.nodes[2].type, "nn.GELU");
  EXPECT_EQ(graph.nodes[3].type, "nn.Conv2d");
  // Wired from the first permute's input to the last permute's output, renamed in between.
  EXPECT_EQ(graph.nodes[0].input_names, std::vector<std::string>{"x"});
  EXPECT_EQ(graph.nodes[0].output_names, std::vector<std::string>{"b.channels_first"});
  EXPECT_EQ(graph.nodes[1].input_names, std::vector<std::string>{"b.channels_first"});
  EXPECT_EQ(graph.nodes[2].output_names, std::vector<std::string>{"d.channels_first"});
  EXPECT_EQ(graph.nodes[3].output_names, std::vector<std::string>{"y"});
  // The Linear's weight is a 1x1 kernel; its parameters are a convolution's.
  const Node& fc1 = graph.nodes[1];
  EXPECT_EQ(fc1.attributes.at("weight").shape, (std::vector<int>{16, 8, 1, 1}));
  EXPECT_EQ(fc1.params.at("in_channels").AsInt(), 8);
  EXPECT_EQ(fc1.params.at("out_channels").AsInt(), 16);
  EXPECT_EQ(fc1.params.at("kernel_size").AsIntArray(), (std::vector<int>{1, 1}));
  EXPECT_TRUE(fc1.params.at("bias").AsBool());
  EXPECT_FALSE(graph.nodes[3].params.at("bias").AsBool());
  // The permutes' operands are gone; the renamed ones are channels-first.
  ASSERT_EQ(graph.operands.size(), 5u);
  EXPECT_EQ(graph.FindOperand("a"), nullptr);
  EXPECT_EQ(graph.FindOperand("e"), nullptr);
  ASSERT_NE(graph.FindOperand("c.channels_first"), nullptr);
  EXPECT_EQ(graph.FindOperand("c.channels_first")->shape, (std::vector<int>{1, 16, 5, 6}));
}

// The graph's node types in order, to check that a rewrite did not happen.
std::vector<std::string> Types(const Graph& graph) {
  std::vector<std::string> types;
  for (const Node& node : graph.nodes) types.push_back(node.type);
  return types;
}

TEST(ChannelsFirstBlocks, LeavesAloneWhatOthersCouldSee) {
  const std::vector<std::string> unchanged = Types(ConvNextBlock());
  // An operand inside the chain that a second node reads.
  Graph read_twice = ConvNextBlock();
  read_twice.nodes.push_back(MakeNode("nn.ReLU", "other", "c", "z"));
  read_twice.operands.push_back({"z", {1, 5, 6, 16}});
  read_twice.output_names.push_back("z");
  EXPECT_EQ(RewriteChannelsLastBlocks(&read_twice), 0);
  // An operand inside the chain that is a graph output.
  Graph output_inside = ConvNextBlock();
  output_inside.output_names.push_back("d");
  EXPECT_EQ(RewriteChannelsLastBlocks(&output_inside), 0);
  EXPECT_EQ(Types(output_inside), unchanged);
  // A LayerNorm over two dimensions is not per pixel.
  Graph two_dimensions = ConvNextBlock();
  two_dimensions.nodes[1].params["normalized_shape"] = Parameter::Parse("(6,8)");
  EXPECT_EQ(RewriteChannelsLastBlocks(&two_dimensions), 0);
  // A closing permute to another order.
  Graph other_order = ConvNextBlock();
  other_order.nodes[5].params["dims"] = Parameter::Parse("(0,3,2,1)");
  EXPECT_EQ(RewriteChannelsLastBlocks(&other_order), 0);
  // A node in between that is not per pixel.
  Graph softmax = ConvNextBlock();
  softmax.nodes[3].type = "nn.Softmax";
  EXPECT_EQ(RewriteChannelsLastBlocks(&softmax), 0);
  EXPECT_EQ(Types(softmax)[3], "nn.Softmax");
}

}  // namespace
}  // namespace lumen
