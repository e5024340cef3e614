// prim::TupleConstruct: a leftover of tracing a model that returns a tuple; passes tensors through.
#ifndef LUMEN_LAYER_TUPLE_CONSTRUCT_HPP_
#define LUMEN_LAYER_TUPLE_CONSTRUCT_HPP_

#include "lumen/layer/layer.hpp"

namespace lumen {

// Copies input k to output k unchanged.
class TupleConstruct : public Layer {
 public:
  // Builds the layer; the op has no parameters.
  explicit TupleConstruct(const RuntimeOperator& op) : Layer(op) {}
  // Checks as many outputs as inputs, with equal shapes.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Copies every input to its output.
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_TUPLE_CONSTRUCT_HPP_
