// lumen.Shape (ONNX's Shape): the extents of its input, as a 1-D tensor of numbers. Its values
// depend on the input's shape alone, so a session knows them when it plans: the shape arithmetic
// that follows (ONNX's Gather, Concat, Mul, ... on shapes) is computed then, and Reshape, Expand,
// ConstantOfShape and Range read the results as their target shapes.
#include <algorithm>
#include <vector>

#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {

// ONNX's rule for start and end (opset 15): negative values count from the end, and both clamp
// to [0, rank]; the output holds the extents from start up to end.
class ShapeOf : public Layer {
 public:
  // Reads start (default 0) and end (default: the rank).
  explicit ShapeOf(const LayerConfig& config)
      : Layer(config),
        start_(config.IntParam("start", 0)),
        end_(config.IntParam("end", kToTheEnd)) {}

  // One number per extent in [start, end).
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    const Range range = Extents(input_shapes[0]);
    return {Shape{static_cast<uint32_t>(range.end - range.begin)}};
  }

  // Writes the extents: the session calls this when it plans.
  bool OutputsFromShapes(const Shapes& input_shapes, const OutputTensors& outputs) const override {
    const Range range = Extents(input_shapes[0]);
    float* values = outputs[0]->data();  // 1-D: storage order is the row-major order
    for (size_t axis = range.begin; axis < range.end; ++axis) {
      values[axis - range.begin] = static_cast<float>(input_shapes[0][axis]);
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
  struct Range {
    size_t begin, end;
  };
  // The axes [begin, end) of `input` that start_ and end_ name.
  Range Extents(const Shape& input) const {
    // LESSON 16 BEGIN: the axes start_ and end_ name: negative ones count from the end; clamp both
    const int rank = static_cast<int>(input.size());
    const auto resolve = [rank](int index) {
      return static_cast<size_t>(std::clamp(index < 0 ? index + rank : index, 0, rank));
    };
    const size_t begin = resolve(start_);
    return {begin, std::max(begin, resolve(end_))};
    // LESSON 16 END
  }

  int start_;
  int end_;
};

LUMEN_REGISTER_LAYER(ShapeOf, "lumen.Shape");

}  // namespace lumen
