// lumen.Range (ONNX's Range, what torch.arange exports when its bounds come from shapes): the
// numbers start, start + delta, ... up to (not including) limit, from three one-element inputs
// whose values a session knows when it plans.
#include <cmath>
#include <vector>

#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {

// ONNX's count: max(ceil((limit - start) / delta), 0), computed in double as the reference does.
class Range : public Layer {
 public:
  using Layer::Layer;

  // The count depends on the inputs' values.
  Shapes OutputShapes(const Shapes& /*input_shapes*/) const override { FailWithoutValues(); }

  // start, limit and delta.
  std::vector<size_t> ShapeValueInputs() const override { return {0, 1, 2}; }

  // One element per number in the range.
  Shapes OutputShapesFromValues(const Shapes& input_shapes,
                                const InputTensors& input_values) const override {
    CheckInputCount(input_shapes, 3);
    for (size_t i = 0; i < 3; ++i) {
      if (ShapeElementCount(input_shapes[i]) != 1) {
        Fail(Concat("input ", i, " must hold one number, got shape ",
                    ShapeToString(input_shapes[i])));
      }
    }
    const double start = input_values[0]->data()[0];
    const double limit = input_values[1]->data()[0];
    const double delta = input_values[2]->data()[0];
    if (delta == 0.0 || !std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta)) {
      Fail(Concat("cannot count from ", start, " to ", limit, " in steps of ", delta));
    }
    const double count = std::max(std::ceil((limit - start) / delta), 0.0);
    if (count > static_cast<double>(kMaxCount)) {
      Fail(Concat("the range from ", start, " to ", limit, " in steps of ", delta, " holds ", count,
                  " numbers, more than ", kMaxCount));
    }
    return {Shape{static_cast<uint32_t>(count)}};
  }

  // start + i * delta for each i.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& /*context*/) const override {
    const double start = inputs[0]->data()[0];
    const double delta = inputs[2]->data()[0];
    float* values = outputs[0]->data();  // 1-D: storage order is the row-major order
    for (size_t i = 0; i < outputs[0]->size(); ++i) {
      values[i] = static_cast<float>(start + static_cast<double>(i) * delta);
    }
  }

 private:
  static constexpr uint32_t kMaxCount = 1u << 31;
};

LUMEN_REGISTER_LAYER(Range, "lumen.Range");

}  // namespace lumen
