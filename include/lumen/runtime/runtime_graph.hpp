// RuntimeGraph: loads a PNNX model, builds it into layers, and runs it.
//
//   RuntimeGraph graph("model.pnnx.param", "model.pnnx.bin");   // read (reader)
//   graph.Build();        // link operands, create layers, sort, preallocate, check shapes
//   auto outputs = graph.Forward({input_batch});                 // run, as often as you like
#ifndef LUMEN_RUNTIME_RUNTIME_GRAPH_HPP_
#define LUMEN_RUNTIME_RUNTIME_GRAPH_HPP_

#include <memory>
#include <string>
#include <vector>

#include "lumen/layer/layer.hpp"
#include "lumen/pnnx/pnnx_model.hpp"
#include "lumen/runtime/runtime_operand.hpp"
#include "lumen/runtime/runtime_operator.hpp"
#include "lumen/tensor/tensor.hpp"

namespace lumen {

// A model ready to run: operators in execution order, each with its layer and preallocated
// operands.
class RuntimeGraph {
 public:
  // Reads a model from its two files; throws lumen::Error on a malformed file.
  RuntimeGraph(const std::string& param_path, const std::string& bin_path);

  // Takes nodes that were already read (or made by hand, as the tests do).
  explicit RuntimeGraph(PnnxModel model);

  RuntimeGraph(const RuntimeGraph&) = delete;
  RuntimeGraph& operator=(const RuntimeGraph&) = delete;

  // Links producers and consumers, creates every layer through the registry (reporting every
  // unsupported op type at once), fuses activations into the convolutions before them, sorts
  // operators topologically, allocates every operand from the shapes in the param file and lets
  // each layer check its shapes. Throws lumen::Error.
  void Build();

  // Runs the model: one batch per graph input (in pnnx.Input order), each of the shape the model
  // was exported with; returns one batch per graph output. Throws lumen::Error on a wrong input
  // shape.
  std::vector<TensorBatch> Forward(const std::vector<TensorBatch>& inputs);

  // Same, writing the outputs into `outputs` and reusing its memory across calls.
  void Forward(const std::vector<TensorBatch>& inputs, std::vector<TensorBatch>* outputs);

  // The zero-copy way, for callers that produce inputs and consume outputs in place: fill
  // input(i) (one tensor per sample, already of the right shapes), call Run(), read output(i).
  TensorBatch& input(size_t index) { return input_operands_.at(index)->data; }
  // Runs every operator on the current contents of the inputs.
  void Run();
  // Graph output `index` after Run(), valid until the next Run or Forward.
  const TensorBatch& output(size_t index) const { return output_operands_.at(index)->data; }

  // Full shapes (batch first) the graph inputs must have.
  const std::vector<Shape>& input_shapes() const { return input_shapes_; }
  // Full shapes (batch first) of the graph outputs.
  const std::vector<Shape>& output_shapes() const { return output_shapes_; }

  // Operators in the order Forward runs them (valid after Build).
  std::vector<const RuntimeOperator*> ExecutionOrder() const;

  // Bytes of the arena that holds every operand, as planned (operands that are never alive at
  // the same time share memory).
  size_t planned_activation_bytes() const { return planned_floats_ * sizeof(float); }
  // Bytes the operands would need with one buffer each, for comparison.
  size_t separate_activation_bytes() const { return separate_floats_ * sizeof(float); }

  // Turns per-operator timing on or off for the following Forward calls.
  void set_profiling(bool enabled) { profiling_ = enabled; }
  // Milliseconds each operator took in the last profiled Forward, in execution order.
  const std::vector<double>& operator_milliseconds() const { return operator_milliseconds_; }

 private:
  // One operator ready to run, with the pointer lists its layer's Forward takes.
  struct Step {
    RuntimeOperator* op = nullptr;
    std::unique_ptr<Layer> layer;
    std::vector<const TensorBatch*> inputs;
    std::vector<TensorBatch*> outputs;
  };

  // Build's steps, in the order it runs them; each is explained where it is defined.
  void LinkOperands();
  void CreateLayers();
  void FuseActivations();
  void SortTopologically();
  void AllocateOperands();
  void PrepareLayers();
  // Throws lumen::Error with expected vs got when `inputs` do not match the model's input shapes.
  void CheckInputs(const std::vector<TensorBatch>& inputs) const;

  PnnxModel model_;
  bool built_ = false;
  std::vector<Step> steps_;  // in execution order after Build
  std::vector<RuntimeOperand*> input_operands_;
  std::vector<RuntimeOperand*> output_operands_;
  std::vector<Shape> input_shapes_;
  std::vector<Shape> output_shapes_;
  std::vector<float> arena_;  // every operand's storage, laid out by the memory plan
  size_t planned_floats_ = 0;
  size_t separate_floats_ = 0;
  bool profiling_ = false;
  std::vector<double> operator_milliseconds_;
};

}  // namespace lumen

#endif  // LUMEN_RUNTIME_RUNTIME_GRAPH_HPP_
