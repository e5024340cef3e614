#include "graph/channels_first_blocks.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace lumen {
namespace {

// Elementwise activations: the same function of every element, whatever the layout.
const std::set<std::string> kElementwise = {
    "nn.GELU",       "F.gelu",       "nn.ReLU",      "F.relu",      "nn.ReLU6",
    "nn.SiLU",       "F.silu",       "nn.Hardswish", "F.hardswish", "nn.Hardsigmoid",
    "F.hardsigmoid", "nn.Sigmoid",   "F.sigmoid",    "nn.Tanh",     "F.tanh",
    "nn.LeakyReLU",  "F.leaky_relu", "nn.Mish",      "F.mish"};

// The ints of an int or int-list parameter; empty for anything else.
std::vector<int> Ints(const Node& node, const std::string& key) {
  const auto found = node.params.find(key);
  if (found == node.params.end()) return {};
  if (found->second.type() == Parameter::Type::kInt) return {found->second.AsInt()};
  if (found->second.type() == Parameter::Type::kIntArray) return found->second.AsIntArray();
  return {};
}

bool IsPermute(const Node& node, const std::vector<int>& dims) {
  return node.type == "Tensor.permute" && node.input_names.size() == 1 &&
         node.output_names.size() == 1 && Ints(node, "dims") == dims;
}

// Whether `node` computes the same per pixel on either layout once converted (see Convert).
bool IsPerPixel(const Node& node) {
  if (node.input_names.size() != 1 || node.output_names.size() != 1) return false;
  if (node.type == "nn.LayerNorm") return Ints(node, "normalized_shape").size() == 1;
  if (node.type == "nn.Linear") {
    const auto weight = node.attributes.find("weight");
    return weight != node.attributes.end() && weight->second.shape.size() == 2;
  }
  return kElementwise.count(node.type) > 0;
}

// Turns a per-pixel node of the channels-last chain into its channels-first form.
void Convert(Node* node) {
  if (node->type == "nn.LayerNorm") {
    node->type = "lumen.ChannelLayerNorm";
  } else if (node->type == "nn.Linear") {
    // (out, in) weight -> (out, in, 1, 1): the same bytes, a 1x1 kernel per output channel.
    Attribute& weight = node->attributes.at("weight");
    const int out_features = weight.shape[0];
    const int in_features = weight.shape[1];
    weight.shape = {out_features, in_features, 1, 1};
    const bool bias = node->attributes.count("bias") > 0;
    node->type = "nn.Conv2d";
    node->params.clear();
    node->params["in_channels"] = Parameter::FromInt(in_features);
    node->params["out_channels"] = Parameter::FromInt(out_features);
    node->params["kernel_size"] = Parameter::FromIntArray({1, 1});
    node->params["stride"] = Parameter::FromIntArray({1, 1});
    node->params["padding"] = Parameter::FromIntArray({0, 0});
    node->params["dilation"] = Parameter::FromIntArray({1, 1});
    node->params["groups"] = Parameter::FromInt(1);
    node->params["bias"] = Parameter::FromBool(bias);
    node->params["padding_mode"] = Parameter::FromString("zeros");
  }
}

}  // namespace

int RewriteChannelsLastBlocks(Graph* graph) {
  // Who reads each operand, and which operands leave the graph.
  std::map<std::string, std::vector<size_t>> readers;
  for (size_t index = 0; index < graph->nodes.size(); ++index) {
    for (const std::string& name : graph->nodes[index].input_names) readers[name].push_back(index);
  }
  const std::set<std::string> outputs(graph->output_names.begin(), graph->output_names.end());
  // The one node reading `name`, or -1 when it is read by none or several, or is an output.
  const auto only_reader = [&](const std::string& name) -> int {
    const auto found = readers.find(name);
    if (found == readers.end() || found->second.size() != 1 || outputs.count(name) > 0) return -1;
    return static_cast<int>(found->second[0]);
  };
  std::set<size_t> removed_nodes;
  std::set<std::string> removed_operands;
  std::map<std::string, std::string> renamed;  // operands inside a chain -> their new name
  int rewritten = 0;
  for (size_t first = 0; first < graph->nodes.size(); ++first) {
    if (!IsPermute(graph->nodes[first], {0, 2, 3, 1})) continue;
    // Follow the single readers from the first permute's output to the closing permute.
    std::vector<size_t> chain;
    int next = only_reader(graph->nodes[first].output_names[0]);
    while (next >= 0 && IsPerPixel(graph->nodes[static_cast<size_t>(next)])) {
      chain.push_back(static_cast<size_t>(next));
      next = only_reader(graph->nodes[static_cast<size_t>(next)].output_names[0]);
    }
    if (chain.empty() || next < 0 ||
        !IsPermute(graph->nodes[static_cast<size_t>(next)], {0, 3, 1, 2})) {
      continue;
    }
    const size_t last = static_cast<size_t>(next);
    Node& opening = graph->nodes[first];
    Node& closing = graph->nodes[last];
    // The chain reads what the opening permute read and writes what the closing one wrote.
    removed_operands.insert(opening.output_names[0]);
    removed_operands.insert(closing.input_names[0]);
    graph->nodes[chain.front()].input_names[0] = opening.input_names[0];
    graph->nodes[chain.back()].output_names[0] = closing.output_names[0];
    for (size_t position = 0; position + 1 < chain.size(); ++position) {
      std::string& name = graph->nodes[chain[position]].output_names[0];
      const std::string new_name = name + ".channels_first";
      renamed[name] = new_name;
      name = new_name;
      graph->nodes[chain[position + 1]].input_names[0] = new_name;
    }
    for (size_t index : chain) Convert(&graph->nodes[index]);
    removed_nodes.insert(first);
    removed_nodes.insert(last);
    ++rewritten;
  }
  if (rewritten == 0) return 0;
  // Drop the permutes and their operands; the renamed operands take the channels-first shape.
  std::vector<Node> nodes;
  for (size_t index = 0; index < graph->nodes.size(); ++index) {
    if (removed_nodes.count(index) == 0) nodes.push_back(std::move(graph->nodes[index]));
  }
  graph->nodes = std::move(nodes);
  std::vector<Operand> operands;
  for (Operand& operand : graph->operands) {
    if (removed_operands.count(operand.name) > 0) continue;
    const auto found = renamed.find(operand.name);
    if (found != renamed.end()) {
      operand.name = found->second;
      if (operand.shape.size() == 4) {  // (N, H, W, C) -> (N, C, H, W)
        operand.shape = {operand.shape[0], operand.shape[3], operand.shape[1], operand.shape[2]};
      }
    }
    operands.push_back(std::move(operand));
  }
  graph->operands = std::move(operands);
  return rewritten;
}

}  // namespace lumen
