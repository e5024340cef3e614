// torch.scatter(input, dim, index, src), torch.scatter_reduce(input, dim, index, src, reduce) and
// torch.scatter_add(input, dim, index, src): a copy of input in which src[i][j] lands at
// [index[i][j]][j] (for dim 0; likewise for any rank and dim), replacing the value there or
// combining with it (sum, prod, mean, amax, amin; scatter_add sums). ONNX's ScatterElements maps
// onto these too.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "layer/indexing/coordinates.hpp"
#include "layer/indexing/scatter_reduction.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// scatter's reduce names ('add', 'multiply'); scatter_reduce's are kScatterReduceNames.
const std::pair<const char*, ScatterReduction> kScatterNames[] = {
    {"add", ScatterReduction::kSum}, {"multiply", ScatterReduction::kProd}};

// Per session: the storage strides of the output (the input's shape), the index and src, and,
// when a position's first src value must be told apart (a mean, or include_self=False), how many
// src values have landed on each output element.
struct ScatterState : LayerState {
  std::vector<size_t> output_strides;
  std::vector<size_t> index_strides;
  std::vector<size_t> source_strides;
  size_t extent = 0;             // the input's extent along dim
  std::vector<uint32_t> landed;  // per output element (storage order), or empty
  size_t bytes() const override { return landed.size() * sizeof(uint32_t); }
};

}  // namespace

// The index walks over its own shape, which must be no larger than src's in any dimension and no
// larger than the input's outside dim, all of one rank (PyTorch's rules); with a scalar `value`
// instead of src, every indexed position receives it. Writes run in the index's row-major order,
// one thread, so that repeated positions combine in a fixed order (and the last write wins
// without a reduction). Index values may be negative, counting from the end as ONNX allows.
class Scatter : public Layer {
 public:
  // Reads dim, value (when there is no src operand), reduce and include_self (default True).
  explicit Scatter(const LayerConfig& config);
  // The input's shape.
  Shapes OutputShapes(const Shapes&) const override;
  // Computes the strides and sizes the per-element counts if the reduction needs them.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Copies the input, then writes or combines every src value at its indexed position.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;

 private:
  // True when Forward counts the values landing on each position.
  bool CountsLandings() const {
    return reduction_ == ScatterReduction::kMean ||
           (reduction_ != ScatterReduction::kNone && !include_self_);
  }

  int dim_;
  ScatterReduction reduction_ = ScatterReduction::kNone;
  bool include_self_ = true;
  bool has_value_ = false;  // a scalar value instead of a src operand
  float value_ = 0.0f;
};

Scatter::Scatter(const LayerConfig& config) : Layer(config), dim_(config.IntParam("dim")) {
  const bool reduce_op = config.type().find("scatter_reduce") != std::string::npos;
  if (config.type().find("scatter_add") != std::string::npos) {
    reduction_ = ScatterReduction::kSum;  // scatter_add is scatter_reduce's sum with the input
  } else if (reduce_op || (config.HasParam("reduce") && !config.Param("reduce").IsNone())) {
    const std::string name = config.StringParam("reduce");
    // scatter takes 'add' and 'multiply', scatter_reduce its own five names.
    const bool known = reduce_op ? ParseScatterReduction(name, kScatterReduceNames, &reduction_)
                                 : ParseScatterReduction(name, kScatterNames, &reduction_);
    if (!known) {
      Fail(Concat("reduce must be ",
                  reduce_op ? "'sum', 'prod', 'mean', 'amax' or 'amin'" : "'add' or 'multiply'",
                  ", got '", name, "'"));
    }
  }
  include_self_ = config.BoolParam("include_self", true);
  has_value_ = config.HasParam("value") && !config.Param("value").IsNone();
  if (has_value_) value_ = config.FloatParam("value");
}

Shapes Scatter::OutputShapes(const Shapes& input_shapes) const {
  CheckInputCount(input_shapes, has_value_ ? 2 : 3);
  const Shape& input = input_shapes[0];
  const Shape& index = input_shapes[1];
  const size_t axis = Axis(dim_, input.size());
  if (index.size() != input.size() || (!has_value_ && input_shapes[2].size() != input.size())) {
    Fail(Concat("input ", ShapeToString(input), ", index ", ShapeToString(index),
                has_value_ ? "" : Concat(" and src ", ShapeToString(input_shapes[2])),
                " must have the same rank"));
  }
  for (size_t d = 0; d < input.size(); ++d) {
    if ((!has_value_ && index[d] > input_shapes[2][d]) || (d != axis && index[d] > input[d])) {
      Fail(Concat("the index ", ShapeToString(index), " must be no larger than src",
                  has_value_ ? "" : Concat(" ", ShapeToString(input_shapes[2])),
                  " in any dim, nor than the input ", ShapeToString(input), " outside dim ", dim_));
    }
  }
  if (input[axis] > kMaxExactIndex) {
    Fail(Concat("extent ", input[axis], " along dim ", dim_,
                " is above 2^24: its positions are not exact as float32 index values"));
  }
  return {input};
}

StatePointer Scatter::Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                              const PrepareContext& /*context*/) const {
  auto state = std::make_unique<ScatterState>();
  state->output_strides = StorageStrides(input_shapes[0]);
  state->index_strides = StorageStrides(input_shapes[1]);
  if (!has_value_) state->source_strides = StorageStrides(input_shapes[2]);
  state->extent = input_shapes[0][Axis(dim_, input_shapes[0].size())];
  if (CountsLandings()) state->landed.resize(ShapeElementCount(output_shapes[0]));
  return state;
}

void Scatter::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                      const ForwardContext& context) const {
  ScatterState& state = context.state_as<ScatterState>();
  const size_t axis = Axis(dim_, inputs[0]->rank());
  const float* index = inputs[1]->data();
  const float* source = has_value_ ? nullptr : inputs[2]->data();
  float* output = outputs[0]->data();
  std::copy(inputs[0]->data(), inputs[0]->data() + inputs[0]->size(), output);
  std::fill(state.landed.begin(), state.landed.end(), 0u);
  ForEachCoordinate(inputs[1]->shape(), [&](const Coordinates& coordinates) {
    const float at = index[StorageOffsetOf(coordinates, state.index_strides)];
    size_t position = 0;
    if (!ResolveIndexValue(at, state.extent, &position)) {
      Fail(Concat("index ", at, " is out of bounds for dim ", dim_, " of extent ", state.extent));
    }
    Coordinates target = coordinates;
    target[axis] = position;
    const size_t offset = StorageOffsetOf(target, state.output_strides);
    const float value =
        has_value_ ? value_ : source[StorageOffsetOf(coordinates, state.source_strides)];
    float& destination = output[offset];
    // Without include_self, the first value to land replaces the input's.
    if (!state.landed.empty() && state.landed[offset]++ == 0 && !include_self_) {
      destination = value;
      return;
    }
    CombineScattered(reduction_, value, &destination);
  });
  if (reduction_ == ScatterReduction::kMean) {
    // PyTorch's mean counts the input's value as one more when include_self holds.
    for (size_t offset = 0; offset < state.landed.size(); ++offset) {
      if (state.landed[offset] == 0) continue;
      output[offset] /= static_cast<float>(state.landed[offset] + (include_self_ ? 1 : 0));
    }
  }
}

LUMEN_REGISTER_LAYER(Scatter, "torch.scatter", "Tensor.scatter", "torch.scatter_reduce",
                     "Tensor.scatter_reduce", "torch.scatter_add", "Tensor.scatter_add");

}  // namespace lumen
