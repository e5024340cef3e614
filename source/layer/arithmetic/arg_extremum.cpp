// torch.argmax / torch.argmin: the position of the largest or smallest value along one dimension,
// or in the whole tensor flattened in row-major order. Lumen tensors hold floats, so positions
// are written as float values (exact up to 2^24).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "base/thread_pool.hpp"
#include "layer/arithmetic/axis_lines.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// The index of the first largest (argmax) or smallest (argmin) value, as PyTorch picks it: a NaN
// counts as beyond every number, and among equal values the first one wins.
class ArgExtremum : public Layer {
 public:
  // Reads dim (an int, or None/absent for the flattened tensor) and keepdim.
  explicit ArgExtremum(const LayerConfig& config);
  // The input's shape without dim (or with it as 1 under keepdim); for dim None a rank-0 tensor,
  // or all ones under keepdim, as PyTorch gives.
  Shapes OutputShapes(const Shapes&) const override;
  // Plans the slices along dim, or the row-major walk of the whole tensor.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Writes the position of each slice's extremum.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;

 private:
  // True if `value` beats `best` (a NaN beats every number; an earlier equal value stays).
  bool Beats(float value, float best) const {
    if (std::isnan(best)) return false;
    if (std::isnan(value)) return true;
    return largest_ ? value > best : value < best;
  }

  bool largest_ = true;
  bool all_dims_ = false;  // dim None: the flattened tensor
  int dim_ = 0;
  bool keepdim_ = false;
};

namespace {

// Per session: the slices along dim, or (dim None) the input's shape and memory strides for a
// walk in row-major order.
struct ArgExtremumState : LayerState {
  bool flattened = false;  // dim None, or a rank-0 input
  AxisLines lines;
  Shape shape;
  std::vector<size_t> strides;
};

// Below this many input elements the slices are searched on one thread.
constexpr size_t kParallelElements = 1 << 15;

}  // namespace

ArgExtremum::ArgExtremum(const LayerConfig& config) : Layer(config) {
  largest_ = config.type().find("argmax") != std::string::npos;
  keepdim_ = config.BoolParam("keepdim", false);
  all_dims_ = !config.HasParam("dim") || config.Param("dim").IsNone();
  if (!all_dims_) dim_ = config.IntParam("dim");
}

Shapes ArgExtremum::OutputShapes(const Shapes& input_shapes) const {
  CheckInputCount(input_shapes, 1);
  const Shape& input = input_shapes[0];
  if (all_dims_) {
    if (ShapeElementCount(input) == 0) {
      Fail(Concat("the input ", ShapeToString(input), " is empty: it has no extremum"));
    }
    return {keepdim_ ? Shape(input.size(), 1) : Shape{}};
  }
  // A scalar is a 1-element vector to PyTorch, which accepts dim 0 or -1 for it.
  const size_t axis = Axis(dim_, std::max<size_t>(input.size(), 1));
  if (input.empty()) return {Shape{}};
  if (input[axis] == 0) {
    Fail(Concat("dim ", dim_, " of the input ", ShapeToString(input),
                " is empty: it has no extremum"));
  }
  Shape output = input;
  if (keepdim_) {
    output[axis] = 1;
  } else {
    output.erase(output.begin() + static_cast<std::ptrdiff_t>(axis));
  }
  return {output};
}

StatePointer ArgExtremum::Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                                  const PrepareContext& /*context*/) const {
  auto state = std::make_unique<ArgExtremumState>();
  const Shape& input = input_shapes[0];
  if (all_dims_ || input.empty()) {
    state->flattened = true;
    state->shape = input;
    state->strides = StorageStrides(input);
  } else {
    state->lines = MakeAxisLines(input, Axis(dim_, input.size()), output_shapes[0], keepdim_);
  }
  return state;
}

void ArgExtremum::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                          const ForwardContext& context) const {
  const ArgExtremumState& state = context.state_as<ArgExtremumState>();
  const float* source = inputs[0]->data();
  float* target = outputs[0]->data();
  if (state.flattened) {
    // The whole tensor in row-major order: an odometer over the logical index, its memory offset
    // kept alongside.
    const size_t rank = state.shape.size();
    size_t index[kMaxRank] = {};
    size_t offset = 0;
    size_t best_position = 0;
    float best = source[0];
    const size_t count = ShapeElementCount(state.shape);
    for (size_t position = 0; position < count; ++position) {
      if (Beats(source[offset], best)) {
        best = source[offset];
        best_position = position;
      }
      for (size_t d = rank; d-- > 0;) {
        offset += state.strides[d];
        if (++index[d] < state.shape[d]) break;
        offset -= state.strides[d] * state.shape[d];
        index[d] = 0;
      }
    }
    target[0] = static_cast<float>(best_position);
    return;
  }
  const AxisLines& lines = state.lines;
  ParallelFor(
      context.compute.pool, static_cast<std::ptrdiff_t>(lines.count),
      [&](std::ptrdiff_t line) {
        size_t input_base = 0, output_base = 0;
        lines.Locate(static_cast<size_t>(line), &input_base, &output_base);
        const float* values = source + input_base;
        size_t best_position = 0;
        float best = values[0];
        for (size_t e = 1; e < lines.extent; ++e) {
          if (Beats(values[e * lines.input_step], best)) {
            best = values[e * lines.input_step];
            best_position = e;
          }
        }
        target[output_base] = static_cast<float>(best_position);
      },
      Schedule::kStatic, inputs[0]->size() >= kParallelElements);
}

LUMEN_REGISTER_LAYER(ArgExtremum, "torch.argmax", "Tensor.argmax", "torch.argmin", "Tensor.argmin");

}  // namespace lumen
