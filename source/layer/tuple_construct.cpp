#include "lumen/layer/tuple_construct.hpp"

#include "lumen/base/error.hpp"
#include "lumen/layer/layer_registry.hpp"

namespace lumen {

void TupleConstruct::Prepare(const std::vector<Shape>& input_shapes,
                             const std::vector<Shape>& output_shapes) {
  if (input_shapes.empty() || input_shapes != output_shapes) {
    Fail("only a pass-through (each output the same shape as its input) is supported");
  }
}

void TupleConstruct::Forward(const std::vector<const TensorBatch*>& inputs,
                             const std::vector<TensorBatch*>& outputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    for (size_t sample = 0; sample < inputs[i]->size(); ++sample) {
      (*outputs[i])[sample] = (*inputs[i])[sample];
    }
  }
}

LUMEN_REGISTER_LAYER(TupleConstruct, "prim::TupleConstruct");

}  // namespace lumen
