// What a Model holds that its public header does not show: the built graph. Sessions run it, and
// the tests and tools in this tree read it or wrap graphs they build by hand.
#ifndef LUMEN_RUNTIME_MODEL_INTERNALS_HPP_
#define LUMEN_RUNTIME_MODEL_INTERNALS_HPP_

#include <memory>
#include <utility>

#include "lumen/model.hpp"
#include "runtime/runtime_graph.hpp"

namespace lumen {

// The engine's side of a Model (see the top of this file).
class ModelInternals {
 public:
  // Holds `graph` for the model Wrap makes around it.
  explicit ModelInternals(std::unique_ptr<RuntimeGraph> graph) : graph_(std::move(graph)) {}

  // The built graph of `model`.
  static const RuntimeGraph& Graph(const Model& model) { return *model.internals_->graph_; }

  // Wraps a graph that is already built as a model (tests build graphs by hand; Model::Load
  // builds one from a file).
  static std::shared_ptr<const Model> Wrap(std::unique_ptr<RuntimeGraph> graph) {
    return std::shared_ptr<const Model>(
        new Model(std::make_unique<ModelInternals>(std::move(graph))));
  }

 private:
  std::unique_ptr<RuntimeGraph> graph_;
};

}  // namespace lumen

#endif  // LUMEN_RUNTIME_MODEL_INTERNALS_HPP_
