// Layer: the interface every operator implementation follows.
//
// A layer is built once from its RuntimeOperator (parameters and weights are read and converted in
// the constructor), checked once against the graph's shapes in Prepare, and then only computes in
// Forward. Layers never see files: everything they need arrives through the RuntimeOperator.
#ifndef LUMEN_LAYER_LAYER_HPP_
#define LUMEN_LAYER_LAYER_HPP_

#include <string>
#include <vector>

#include "lumen/runtime/runtime_operator.hpp"
#include "lumen/tensor/tensor.hpp"

namespace lumen {

// Base class of every operator implementation (one subclass per op type).
class Layer {
 public:
  // Remembers how to name the operator in messages ("nn.Conv2d 'conv1'").
  explicit Layer(const RuntimeOperator& op) : description_(op.Describe()) {}
  virtual ~Layer() = default;
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;

  // Called once before the first Forward with the full shapes (batch first) of every input and
  // output operand. Checks that this layer can turn those inputs into those outputs and sizes any
  // workspace. Throws lumen::Error naming the layer otherwise. The default accepts any shapes.
  virtual void Prepare(const std::vector<Shape>& input_shapes,
                       const std::vector<Shape>& output_shapes);

  // Computes every output batch from the input batches. Outputs are preallocated with the shapes
  // given to Prepare; a layer writes into them and never resizes them.
  virtual void Forward(const std::vector<const TensorBatch*>& inputs,
                       const std::vector<TensorBatch*>& outputs) = 0;

  // "nn.Conv2d 'conv1'": the operator this layer was built from.
  const std::string& description() const { return description_; }

 protected:
  // Throws lumen::Error unless there are `inputs` inputs and `outputs` outputs.
  void CheckArity(const std::vector<Shape>& input_shapes, const std::vector<Shape>& output_shapes,
                  size_t inputs, size_t outputs) const;

  // Converts a PyTorch dimension of a full shape (batch first, negative counts from the end) into
  // a dimension of one sample. Throws lumen::Error naming the layer if it is out of range or is
  // the batch dimension, which layers never reorganise.
  size_t SampleAxis(int dim, size_t full_rank) const;

  // Throws lumen::Error prefixed with this layer's description.
  [[noreturn]] void Fail(const std::string& message) const;

 private:
  std::string description_;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_LAYER_HPP_
