// lumen.Hardmax: ONNX's Hardmax (opset 13 on), which PyTorch has no op for: 1 where a slice along
// dim has its first largest value, 0 elsewhere; what softmax tends to as its input is scaled up.
#include <cmath>
#include <memory>
#include <vector>

#include "layer/arithmetic/axis_lines.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// Per session: the slices along dim.
struct HardmaxState : LayerState {
  AxisLines lines;
};

}  // namespace

// The largest value is chosen as numpy's argmax (ONNX's reference) chooses it: the first of equal
// values, and a NaN beats every number. Older opsets' Hardmax, over the input flattened from an
// axis on, is this layer after a flatten (the ONNX reader does that).
class Hardmax : public Layer {
 public:
  // Reads dim (default -1).
  explicit Hardmax(const LayerConfig& config) : Layer(config), dim_(config.IntParam("dim", -1)) {}

  // The input's shape, after checking dim against its rank.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    if (input_shapes[0].empty()) Fail("the input must have at least one dimension");
    Axis(dim_, input_shapes[0].size());
    return {input_shapes[0]};
  }

  // Plans the slices along dim.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                       const PrepareContext& /*context*/) const override {
    auto state = std::make_unique<HardmaxState>();
    state->lines =
        MakeAxisLines(input_shapes[0], Axis(dim_, input_shapes[0].size()), output_shapes[0], true);
    return state;
  }

  // Writes each slice's one-hot.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const AxisLines& lines = context.state_as<HardmaxState>().lines;
    const float* input = inputs[0]->data();
    float* output = outputs[0]->data();
    if (lines.extent == 0) return;
    for (size_t line = 0; line < lines.count; ++line) {
      size_t input_base = 0, output_base = 0;
      lines.Locate(line, &input_base, &output_base);
      size_t best = 0;
      float best_value = input[input_base];
      for (size_t e = 1; e < lines.extent && !std::isnan(best_value); ++e) {
        const float value = input[input_base + e * lines.input_step];
        if (std::isnan(value) || value > best_value) {
          best = e;
          best_value = value;
        }
      }
      for (size_t e = 0; e < lines.extent; ++e) {
        output[output_base + e * lines.output_step] = e == best ? 1.0f : 0.0f;
      }
    }
  }

 private:
  int dim_;
};

LUMEN_REGISTER_LAYER(Hardmax, "lumen.Hardmax");

}  // namespace lumen
