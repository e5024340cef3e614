// lumen.ConstantOfShape (ONNX's ConstantOfShape): a tensor of one value whose shape is the values
// of input 0, which a session knows when it plans (the shape arithmetic before it is computed
// then, see layer.hpp).
#include <cstdint>
#include <vector>

#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {

// Fills its output with `value`; input 0, a 1-D tensor of extents, only gives the shape.
class ConstantOfShape : public Layer {
 public:
  // Reads value (ONNX's default 0).
  explicit ConstantOfShape(const LayerConfig& config)
      : Layer(config), value_(config.FloatParam("value", 0.0f)) {}

  // Nothing without input 0's values: the session asks OutputShapesFromValues.
  Shapes OutputShapes(const Shapes& /*input_shapes*/) const override { FailWithoutValues(); }

  // The output's shape is the values of input 0.
  std::vector<size_t> ShapeValueInputs() const override { return {0}; }

  // The extents input 0 holds, each a whole number from 0 to 2^32 - 1.
  Shapes OutputShapesFromValues(const Shapes& input_shapes,
                                const InputTensors& input_values) const override {
    CheckInputCount(input_shapes, 1);
    Shape shape;
    for (int64_t extent : ShapeOperandValues(input_shapes, input_values, 0)) {
      if (extent < 0 || extent > UINT32_MAX) Fail(Concat("the shape has an extent ", extent));
      shape.push_back(static_cast<uint32_t>(extent));
    }
    ShapeElementCount(shape);  // throws on a rank above kMaxRank or a count that overflows
    return {shape};
  }

  // Fills the output.
  void Forward(const InputTensors& /*inputs*/, const OutputTensors& outputs,
               const ForwardContext& /*context*/) const override {
    outputs[0]->Fill(value_);
  }

 private:
  float value_;
};

LUMEN_REGISTER_LAYER(ConstantOfShape, "lumen.ConstantOfShape");

}  // namespace lumen
