// lumen.Shape (ONNX's Shape): the extents of its input, as a 1-D tensor of numbers. Its values
// depend on the input's shape alone, so a session knows them when it plans: the shape arithmetic
// that follows (ONNX's Gather, Concat, Mul, ... on shapes) is computed then, and Reshape, Expand,
// ConstantOfShape and Range read the results as their target shapes.
#include <cstdint>
#include <vector>

#include "layer/layer_registry.hpp"
#include "layer/layout/slice_plan.hpp"
#include "lumen/error.hpp"

namespace lumen {

// ONNX's rule for start and end (opset 15): negative values count from the end, and both clamp
// to [0, rank]; the output holds the extents from start up to end.
class ShapeOf : public Layer {
 public:
  // Reads start (default 0) and end (default: the rank).
  explicit ShapeOf(const LayerConfig& config)
      : Layer(config), axes_(config.DimRangeParam("start", 0, "end", kToTheEnd)) {}

  // One number per extent in [start, end).
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    const SliceRange axes = Axes(input_shapes[0]);
    return {Shape{static_cast<uint32_t>(axes.end - axes.begin)}};
  }

  // Writes the extents: the session calls this when it plans.
  bool OutputsFromShapes(const Shapes& input_shapes, const OutputTensors& outputs) const override {
    const SliceRange axes = Axes(input_shapes[0]);
    float* values = outputs[0]->data();  // 1-D: storage order is the row-major order
    for (int64_t axis = axes.begin; axis < axes.end; ++axis) {
      values[axis - axes.begin] = static_cast<float>(input_shapes[0][static_cast<size_t>(axis)]);
    }
    return true;
  }

  // The same from the input tensor's shape (when a session runs it rather than planning it).
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& /*context*/) const override {
    OutputsFromShapes({inputs[0]->shape()}, outputs);
  }

 private:
  static constexpr int kToTheEnd = 2147483647;
  // The axes of `input` that start and end name: ONNX slices the shape as Python would.
  SliceRange Axes(const Shape& input) const {
    return PythonSliceRange(axes_.start, axes_.end, static_cast<int64_t>(input.size()));
  }

  DimRange axes_;  // start and end
};

LUMEN_REGISTER_LAYER(ShapeOf, "lumen.Shape");

}  // namespace lumen
