#include "lumen/model.hpp"

#include <new>
#include <utility>

#include "graph/graph_reader.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "runtime/model_internals.hpp"
#include "runtime/runtime_graph.hpp"

namespace lumen {

std::vector<std::string> Model::SupportedOperatorTypes() {
  return LayerRegistry::RegisteredTypes();
}

std::shared_ptr<const Model> Model::Load(const std::string& path, const ModelOptions& options) {
  try {
    RuntimeGraphOptions graph_options;
    graph_options.fuse = options.fuse;
    Graph graph = ReadGraph(path, options.weights_path);
    return ModelInternals::Wrap(std::make_unique<RuntimeGraph>(std::move(graph), graph_options));
  } catch (const std::bad_alloc&) {
    throw Error(Concat(path, ": out of memory while loading the model"));
  }
}

Model::Model(std::unique_ptr<ModelInternals> internals) : internals_(std::move(internals)) {}

Model::~Model() = default;

std::vector<std::string> Model::input_names() const {
  const RuntimeGraph& graph = ModelInternals::Graph(*this);
  std::vector<std::string> names;
  for (int input : graph.inputs()) names.push_back(graph.operands()[input].name);
  return names;
}

std::vector<std::string> Model::output_names() const {
  const RuntimeGraph& graph = ModelInternals::Graph(*this);
  std::vector<std::string> names;
  for (int output : graph.outputs()) names.push_back(graph.operands()[output].name);
  return names;
}

std::vector<TensorInfo> Model::inputs() const { return ModelInternals::Graph(*this).input_infos(); }

std::vector<TensorInfo> Model::outputs() const {
  return ModelInternals::Graph(*this).output_infos();
}

std::vector<std::vector<int>> Model::export_input_shapes() const {
  const RuntimeGraph& graph = ModelInternals::Graph(*this);
  std::vector<std::vector<int>> shapes;
  for (int input : graph.inputs()) shapes.push_back(graph.operands()[input].annotated_shape);
  return shapes;
}

size_t Model::operator_count() const { return ModelInternals::Graph(*this).steps().size(); }

size_t Model::weight_bytes() const { return ModelInternals::Graph(*this).weight_bytes(); }

}  // namespace lumen
