#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>

#include "lumen/error.hpp"
#include "lumen/session.hpp"
#include "lumen/summary.hpp"
#include "runtime/model_internals.hpp"
#include "runtime/runtime_graph.hpp"

namespace lumen {
namespace {

// "(1,3,224,224)", with "?" for an extent left open and "unknown" for no shape at all.
std::string PortShapeText(const ModelSummary::Port& port) {
  if (!port.shape_known) return "unknown";
  std::string text = "(";
  for (size_t i = 0; i < port.shape.size(); ++i) {
    if (i > 0) text += ",";
    text += port.shape[i] < 0 ? std::string("?") : std::to_string(port.shape[i]);
  }
  return text + ")";
}

// Bytes as people read them: "512 B", "44.7 MB" (10^6 bytes, as lumen_run --profile prints).
std::string ByteText(size_t bytes) {
  char text[32];
  if (bytes < 1000) {
    std::snprintf(text, sizeof(text), "%zu B", bytes);
  } else if (bytes < 1000 * 1000) {
    std::snprintf(text, sizeof(text), "%.1f kB", bytes / 1e3);
  } else {
    std::snprintf(text, sizeof(text), "%.1f MB", bytes / 1e6);
  }
  return text;
}

// The session's default input shapes, from the model file's annotations; the note says which
// input has none, or leaves an extent open.
bool DeclaredShapes(const std::vector<std::vector<int>>& declared,
                    const std::vector<std::string>& names, std::vector<Shape>* shapes,
                    std::string* note) {
  for (size_t i = 0; i < declared.size(); ++i) {
    const bool open = declared[i].empty() || std::any_of(declared[i].begin(), declared[i].end(),
                                                         [](int extent) { return extent < 0; });
    if (open) {
      *note = Concat("input '", names[i],
                     "' has no fixed shape in the model file: give the "
                     "input shapes");
      return false;
    }
    shapes->push_back(Shape(declared[i].begin(), declared[i].end()));
  }
  return true;
}

}  // namespace

ModelSummary Summarize(const Model& model, const std::vector<Shape>& input_shapes) {
  const RuntimeGraph& graph = ModelInternals::Graph(model);
  const std::vector<std::string> input_names = model.input_names();
  if (!input_shapes.empty() && input_shapes.size() != input_names.size()) {
    throw Error(Concat("Summarize: the model has ", input_names.size(), " input(s) but ",
                       input_shapes.size(), " shapes were given"));
  }
  ModelSummary summary;
  summary.source = graph.source();
  summary.parameter_count = graph.parameter_count();
  summary.parameter_bytes = graph.weight_bytes();
  summary.operator_count = graph.steps().size();

  std::map<std::string, size_t> counts;
  for (const RuntimeGraph::Step& step : graph.steps()) {
    ++counts[step.type];
    summary.fused_operator_count += step.fused.size();
  }
  for (const auto& [type, count] : counts) summary.operators.push_back({type, count});
  std::stable_sort(summary.operators.begin(), summary.operators.end(),
                   [](const ModelSummary::OperatorCount& a, const ModelSummary::OperatorCount& b) {
                     return a.count > b.count;
                   });

  const std::vector<std::vector<int>> declared = model.export_input_shapes();
  std::vector<Shape> shapes = input_shapes;
  for (size_t i = 0; i < input_names.size(); ++i) {
    ModelSummary::Port port{input_names[i], declared[i], !declared[i].empty()};
    if (!input_shapes.empty()) port.shape.assign(input_shapes[i].begin(), input_shapes[i].end());
    port.shape_known = port.shape_known || !input_shapes.empty();
    summary.inputs.push_back(port);
  }
  const std::vector<std::string> output_names = model.output_names();
  for (const std::string& name : output_names) summary.outputs.push_back({name, {}, false});

  if (input_shapes.empty() &&
      !DeclaredShapes(declared, input_names, &shapes, &summary.planning_note)) {
    return summary;
  }
  // A session plans exactly what it would for a run, without running: the summary's memory is
  // the memory a run at these shapes takes. It does not own the model (the caller holds it).
  const std::shared_ptr<const Model> unowned(std::shared_ptr<const Model>(), &model);
  SessionOptions options;
  options.threads = 1;  // planning is single-threaded; no pool of idle workers for a summary
  Session session(unowned, options);
  try {
    session.SetInputShapes(shapes);
  } catch (const Error& error) {
    summary.planning_note = error.what();
    return summary;
  }
  summary.planned = true;
  summary.planned_activation_bytes = session.planned_activation_bytes();
  summary.separate_activation_bytes = session.separate_activation_bytes();
  for (size_t i = 0; i < summary.outputs.size(); ++i) {
    const Shape& shape = session.output(i).shape();
    summary.outputs[i].shape.assign(shape.begin(), shape.end());
    summary.outputs[i].shape_known = true;
  }
  return summary;
}

std::string ModelSummary::ToString() const {
  std::string text = Concat("model: ", source, "\n");
  auto ports = [&text](const char* title, const std::vector<Port>& list) {
    text += Concat(title, ": ", list.size(), "\n");
    for (const Port& port : list) text += Concat("  '", port.name, "' ", PortShapeText(port), "\n");
  };
  ports("inputs", inputs);
  ports("outputs", outputs);
  text += Concat("operators: ", operator_count);
  if (fused_operator_count > 0) text += Concat(" (and ", fused_operator_count, " fused into them)");
  text += "\n";
  for (const OperatorCount& entry : operators) {
    char line[128];
    std::snprintf(line, sizeof(line), "  %6zu  %s\n", entry.count, entry.type.c_str());
    text += line;
  }
  text += Concat("parameters: ", parameter_count, " (", ByteText(parameter_bytes), ")\n");
  if (planned) {
    text += Concat("activation memory: ", ByteText(planned_activation_bytes), " planned (",
                   ByteText(separate_activation_bytes), " with one buffer per operand)\n");
  } else {
    text += Concat("activation memory: not planned: ", planning_note, "\n");
  }
  return text;
}

}  // namespace lumen
