#include "lumen/layer/attribute.hpp"

#include "lumen/base/error.hpp"
#include "lumen/layer/layer_registry.hpp"

namespace lumen {

Attribute::Attribute(const RuntimeOperator& op) : Layer(op) {
  shape_ = op.Attribute("data").shape;
  values_ = op.AttributeFloats("data");
}

void Attribute::Prepare(const std::vector<Shape>& input_shapes,
                        const std::vector<Shape>& output_shapes) {
  CheckArity(input_shapes, output_shapes, 0, 1);
  const Shape expected(shape_.begin(), shape_.end());
  if (output_shapes[0] != expected) {
    Fail(Concat("the constant has shape ", ShapeToString(expected), " but the graph says ",
                ShapeToString(output_shapes[0])));
  }
}

void Attribute::Forward(const std::vector<const TensorBatch*>& /*inputs*/,
                        const std::vector<TensorBatch*>& outputs) {
  const float* values = values_.data();
  for (Tensor& sample : *outputs[0]) {
    sample.CopyFromRowMajor(values);
    values += sample.size();
  }
}

LUMEN_REGISTER_LAYER(Attribute, "pnnx.Attribute");

}  // namespace lumen
