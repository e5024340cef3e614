#include "pnnx/pnnx_writer.hpp"

#include <fstream>
#include <map>

#include "lumen/error.hpp"
#include "pnnx/param_reader.hpp"
#include "pnnx/zip_writer.hpp"

namespace lumen {
namespace {

// "(1,3,224,224)f32", with "?" for an extent the file left free.
std::string ShapeAndTypeText(const std::vector<int>& shape, DataType type) {
  return ShapeText(shape) + DataTypeName(type);
}

// One operator line (see the top of pnnx_writer.hpp).
std::string OperatorLine(const Node& node, const std::map<std::string, const Operand*>& operands) {
  std::string line = Concat(node.type, " ", node.name, " ", node.input_names.size(), " ",
                            node.output_names.size());
  for (const std::string& name : node.input_names) line += " " + name;
  for (const std::string& name : node.output_names) line += " " + name;
  for (const auto& [key, parameter] : node.params) line += " " + key + "=" + parameter.text();
  for (const auto& [key, attribute] : node.attributes) {
    line += " @" + key + "=" + ShapeAndTypeText(attribute.shape, attribute.type);
  }
  for (const auto& [key, operand] : node.input_keys) line += " $" + key + "=" + operand;
  for (const std::string& name : node.output_names) {
    const auto found = operands.find(name);
    if (found == operands.end()) continue;
    const Operand& operand = *found->second;
    if (operand.shape.empty() && operand.type == DataType::kUnknown) continue;
    line += " #" + name + "=" + ShapeAndTypeText(operand.shape, operand.type);
  }
  return line;
}

}  // namespace

std::string PnnxParamText(const Graph& graph) {
  std::map<std::string, const Operand*> operands;
  for (const Operand& operand : graph.operands) operands[operand.name] = &operand;
  std::string text = Concat("7767517\n", graph.nodes.size(), " ", graph.operands.size(), "\n");
  for (const Node& node : graph.nodes) text += OperatorLine(node, operands) + "\n";
  return text;
}

void WritePnnxModel(const Graph& graph, const std::string& param_path,
                    const std::string& bin_path) {
  StoredZipWriter zip;
  for (const Node& node : graph.nodes) {
    for (const auto& [key, attribute] : node.attributes) {
      if (attribute.data.size() != attribute.DeclaredByteCount()) {
        throw Error(Concat(node.Describe(), ": weight '@", key, "' holds ", attribute.data.size(),
                           " bytes but declares ", attribute.DeclaredByteCount()));
      }
      zip.Add(node.name + "." + key, attribute.data);
    }
  }
  std::ofstream param(param_path, std::ios::binary | std::ios::trunc);
  param << PnnxParamText(graph);
  param.close();
  if (!param) throw Error(Concat(param_path, ": cannot write the file"));
  zip.Write(bin_path);
}

}  // namespace lumen
