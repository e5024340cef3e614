// ModelSummary: what a model takes, gives and holds, in one call (public API): its inputs and
// outputs with their shapes, its operators counted by type, its parameters and the activation
// memory a session plans for it: what people otherwise open Netron for.
//
//   auto model = lumen::Model::Load("resnet18.pnnx.param");
//   std::cout << lumen::Summarize(*model).ToString();               // at the declared shapes
//   lumen::Summarize(*model, {{1, 3, 160, 160}}).planned_activation_bytes;   // at other shapes
#ifndef LUMEN_SUMMARY_HPP_
#define LUMEN_SUMMARY_HPP_

#include <cstddef>
#include <string>
#include <vector>

#include "lumen/model.hpp"
#include "lumen/tensor.hpp"

namespace lumen {

// A model at a glance (see the top of this file).
struct ModelSummary {
  // A graph input or output: its name and shape (-1 marks an extent left open; an empty shape
  // with `shape_known` false, one that is not known).
  struct Port {
    std::string name;
    std::vector<int> shape;
    bool shape_known = false;
  };
  // How many operators of one type run.
  struct OperatorCount {
    std::string type;
    size_t count = 0;
  };

  std::string source;                    // the file the model was read from
  std::vector<Port> inputs;              // at the shapes summarised: given, else declared
  std::vector<Port> outputs;             // at those input shapes (unknown when they are not)
  std::vector<OperatorCount> operators;  // by type, most frequent first, then by name
  size_t operator_count = 0;             // operators that run, after fusion
  size_t fused_operator_count = 0;       // operators the graph passes merged into others
  size_t parameter_count = 0;            // weight values the model file holds
  size_t parameter_bytes = 0;            // their bytes in the file
  // Whether a session could plan at the input shapes; when not, `planning_note` says why (an
  // extent left open, or the layers' refusal) and the output shapes and memory are unknown.
  bool planned = false;
  std::string planning_note;
  size_t planned_activation_bytes = 0;   // the arena a session plans for every operand
  size_t separate_activation_bytes = 0;  // the same operands with one buffer each

  // The summary as a few lines of text, for people (lumen_run --summary prints it).
  std::string ToString() const;
};

// Summarises `model` at `input_shapes` (one per input), or, when none are given, at the shapes
// the model file declares. Throws lumen::Error when `input_shapes` has the wrong count; a shape
// the layers cannot compute is reported in the summary (planned false), not thrown.
ModelSummary Summarize(const Model& model, const std::vector<Shape>& input_shapes = {});

}  // namespace lumen

#endif  // LUMEN_SUMMARY_HPP_
