#include "pnnx/pnnx_reader.hpp"

#include <glog/logging.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "graph/graph_reader.hpp"
#include "lumen/error.hpp"
#include "pnnx/param_reader.hpp"
#include "pnnx/storage_zip.hpp"

namespace lumen {

void ReadPnnxWeights(const std::string& bin_path, const std::string& param_path, Graph* graph) {
  StorageZip zip(bin_path);
  std::set<std::string> used_members;
  for (Node& node : graph->nodes) {
    for (auto& [key, attribute] : node.attributes) {
      // Member names are "<operator name>.<key>"; both halves may contain dots.
      const std::string member = node.name + "." + key;
      const std::string declared_at =
          Concat(" (declared by ", node.Describe(), " at ", param_path, ":", node.line, ")");
      if (!zip.Contains(member)) {
        throw Error(Concat(bin_path, ": missing weight '", member, "' for attribute '@", key, "'",
                           declared_at));
      }
      const uint64_t stored = zip.MemberSize(member);
      if (stored != attribute.DeclaredByteCount()) {
        throw Error(Concat(bin_path, ": weight '", member, "' holds ", stored, " bytes but '@", key,
                           "' declares ", attribute.ElementCount(), " x ",
                           DataTypeName(attribute.type), " = ", attribute.DeclaredByteCount(),
                           " bytes", declared_at));
      }
      zip.Read(member, &attribute.data);
      used_members.insert(member);
    }
  }
  for (const std::string& member : zip.MemberNames()) {
    if (!used_members.count(member)) {
      LOG(WARNING) << bin_path << ": member '" << member << "' is not used by any operator";
    }
  }
}

namespace {

// Removes the named operands from the graph's operand list.
void EraseOperands(const std::set<std::string>& names, Graph* graph) {
  graph->operands.erase(
      std::remove_if(graph->operands.begin(), graph->operands.end(),
                     [&](const Operand& operand) { return names.count(operand.name) > 0; }),
      graph->operands.end());
}

// pnnx writes an operator returning a tuple (nn.AdaptiveMaxPool2d with return_indices=True) as
// one tuple output and a prim::TupleUnpack of it: the operator takes the unpack's outputs
// instead, when nothing else reads the tuple.
void FoldTupleUnpacks(Graph* graph) {
  std::map<std::string, int> readers;
  for (const Node& node : graph->nodes) {
    for (const std::string& name : node.input_names) ++readers[name];
  }
  std::vector<Node> nodes;
  std::set<std::string> dropped_operands;
  for (Node& node : graph->nodes) {
    if (node.type == "prim::TupleUnpack" && node.input_names.size() == 1 &&
        readers[node.input_names[0]] == 1) {
      const std::string& tuple = node.input_names[0];
      const auto producer = std::find_if(nodes.begin(), nodes.end(), [&](const Node& other) {
        return other.output_names.size() == 1 && other.output_names[0] == tuple;
      });
      if (producer != nodes.end()) {
        producer->output_names = node.output_names;
        dropped_operands.insert(tuple);
        continue;
      }
    }
    nodes.push_back(std::move(node));
  }
  graph->nodes = std::move(nodes);
  EraseOperands(dropped_operands, graph);
}

// pnnx writes F.interpolate(mode="nearest-exact") on a 5-D input as
// aten::_upsample_nearest_exact3d(input, output_size, scale_factors), the two lists coming from
// pnnx.Expression lines without inputs ("[11,12,13]", "None"): it becomes F.interpolate with those
// constants as its size or scale_factor, and the expressions go when nothing else reads them.
void FoldNearestExactUpsamples(Graph* graph) {
  std::map<std::string, const Node*> constants;  // operand -> the input-less expression making it
  std::map<std::string, int> readers;
  for (const Node& node : graph->nodes) {
    if (node.type == "pnnx.Expression" && node.input_names.empty() &&
        node.output_names.size() == 1 && node.params.count("expr")) {
      constants[node.output_names[0]] = &node;
    }
    for (const std::string& name : node.input_names) ++readers[name];
  }
  std::set<std::string> folded;
  for (Node& node : graph->nodes) {
    if (node.type.rfind("aten::_upsample_nearest_exact", 0) != 0 || node.input_names.size() != 3 ||
        !constants.count(node.input_names[1]) || !constants.count(node.input_names[2])) {
      continue;
    }
    const auto list = [&](const std::string& operand) {
      std::string text = constants[operand]->params.at("expr").text();
      std::replace(text.begin(), text.end(), '[', '(');
      std::replace(text.begin(), text.end(), ']', ')');
      return Parameter::Parse(text);
    };
    node.params["mode"] = Parameter::Parse("nearest-exact");
    node.params["size"] = list(node.input_names[1]);
    node.params["scale_factor"] = list(node.input_names[2]);
    for (size_t i = 1; i < 3; ++i) {
      if (--readers[node.input_names[i]] == 0) folded.insert(node.input_names[i]);
    }
    node.type = "F.interpolate";
    node.input_names.resize(1);
    node.input_keys.clear();
  }
  graph->nodes.erase(std::remove_if(graph->nodes.begin(), graph->nodes.end(),
                                    [&](const Node& node) {
                                      return node.output_names.size() == 1 &&
                                             folded.count(node.output_names[0]) > 0;
                                    }),
                     graph->nodes.end());
  EraseOperands(folded, graph);
}

}  // namespace

void ResolvePnnxInputsAndOutputs(Graph* graph) {
  FoldTupleUnpacks(graph);
  FoldNearestExactUpsamples(graph);
  // Operands read by each pnnx.Output line, in file order, become the graph's outputs; a tuple
  // that only feeds pnnx.Output stands for its elements.
  std::vector<Node> kept;
  for (const Node& node : graph->nodes) {
    if (node.type == "pnnx.Input") {
      graph->input_names.insert(graph->input_names.end(), node.output_names.begin(),
                                node.output_names.end());
    } else if (node.type == "pnnx.Output") {
      for (const std::string& name : node.input_names) {
        const auto tuple =
            std::find_if(graph->nodes.begin(), graph->nodes.end(), [&](const Node& n) {
              return n.type == "prim::TupleConstruct" && n.output_names.size() == 1 &&
                     n.output_names[0] == name;
            });
        if (tuple == graph->nodes.end()) {
          graph->output_names.push_back(name);
        } else {
          graph->output_names.insert(graph->output_names.end(), tuple->input_names.begin(),
                                     tuple->input_names.end());
        }
      }
    } else {
      kept.push_back(node);
    }
  }
  // Drop the tuples that only fed pnnx.Output (no other node reads their operand).
  std::set<std::string> read;
  for (const Node& node : kept) read.insert(node.input_names.begin(), node.input_names.end());
  std::set<std::string> dropped_operands;
  std::vector<Node> nodes;
  for (Node& node : kept) {
    if (node.type == "prim::TupleConstruct" && node.output_names.size() == 1 &&
        !read.count(node.output_names[0])) {
      dropped_operands.insert(node.output_names[0]);
      continue;
    }
    nodes.push_back(std::move(node));
  }
  graph->nodes = std::move(nodes);
  EraseOperands(dropped_operands, graph);
  // No pnnx.Input line is fine: pnnx folds a module whose outputs depend on no input value
  // (torch.zeros, x.new_ones(...)) into constants, and the model then has no inputs.
  if (graph->output_names.empty()) throw Error(Concat(graph->source, ": no pnnx.Output line"));
}

std::string PnnxBinPathFor(const std::string& param_path) {
  const std::string suffix = ".param";
  if (param_path.size() > suffix.size() &&
      param_path.compare(param_path.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return param_path.substr(0, param_path.size() - suffix.size()) + ".bin";
  }
  return param_path + ".bin";
}

Graph ReadPnnxGraph(const std::string& param_path, const std::string& bin_path) {
  Graph graph = ReadPnnxParam(param_path);
  ReadPnnxWeights(bin_path.empty() ? PnnxBinPathFor(param_path) : bin_path, param_path, &graph);
  ResolvePnnxInputsAndOutputs(&graph);
  return graph;
}

namespace {

// A pnnx param file starts with the magic number 7767517 on its own line.
bool RecognisesPnnx(const std::string& /*path*/, const std::string& head) {
  return head.rfind("7767517", 0) == 0;
}

Graph ReadPnnx(const std::string& path, const std::string& weights_path) {
  return ReadPnnxGraph(path, weights_path);
}

}  // namespace

LUMEN_REGISTER_GRAPH_FORMAT(Pnnx, (GraphFormat{"pnnx", RecognisesPnnx, ReadPnnx}));

}  // namespace lumen
