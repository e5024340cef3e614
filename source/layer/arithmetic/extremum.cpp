// torch.max / torch.min: the largest (smallest) value over one dimension, with its index, or over
// the whole tensor.
#include <cmath>
#include <memory>
#include <vector>

#include "base/thread_pool.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// Per session: the input seen as (outer, extent, inner) around the reduced dimension, and where
// each output element lives in the outputs' memory.
struct ExtremumState : LayerState {
  AxisSplit split{1, 1, 1};
  // For output element (o, i) in (outer, inner) order, its memory offset in the outputs (which
  // differ from the input's order when the reduced dimension is one of the last two).
  std::vector<size_t> output_offsets;
  size_t bytes() const override { return output_offsets.size() * sizeof(size_t); }
};

// Below this many input elements the reduction runs on one thread.
constexpr size_t kParallelElements = 1 << 15;

}  // namespace

// With a dim (pnnx: dim, keepdim), output 0 holds the values and the optional output 1 the index
// of each one along dim, as floats (exact below 2^24). Ties go to the first index and NaN wins
// over everything (its first occurrence), as in PyTorch. Without a dim the whole tensor reduces to
// one value (a tensor of rank 0).
class Extremum : public Layer {
 public:
  // Reads dim and keepdim; the op type decides max or min.
  explicit Extremum(const LayerConfig& config)
      : Layer(config), maximum_(config.type() == "torch.max") {
    if (config.HasParam("dim") && !config.Param("dim").IsNone()) {
      has_dim_ = true;
      dim_ = config.IntParam("dim");
      keepdim_ = config.BoolParam("keepdim", false);
    }
    if (config.output_count() > (has_dim_ ? 2u : 1u)) {
      Fail(Concat("expected ", has_dim_ ? "1 or 2 outputs" : "1 output", ", got ",
                  config.output_count()));
    }
    outputs_ = config.output_count();
  }

  // The input without dim (or with extent 1 under keepdim), once per output; a scalar without dim.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    const Shape& input = input_shapes[0];
    if (!has_dim_) {
      if (ShapeElementCount(input) == 0) {
        Fail(Concat("the input ", ShapeToString(input), " is empty: it has no extremum"));
      }
      return {Shape{}};
    }
    // PyTorch treats a scalar as a 1-element vector here: dim 0 or -1.
    Shape output = input;
    if (!input.empty()) {
      const size_t axis = Axis(dim_, input.size());
      if (input[axis] == 0) {
        Fail(Concat("dim ", dim_, " of the input ", ShapeToString(input),
                    " is empty: it has no extremum"));
      }
      if (keepdim_) {
        output[axis] = 1;
      } else {
        output.erase(output.begin() + static_cast<std::ptrdiff_t>(axis));
      }
    } else {
      Axis(dim_, 1);
    }
    return std::vector<Shape>(outputs_, output);
  }

  // Splits the input around dim and maps each output element to its memory.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& /*output_shapes*/,
                       const PrepareContext& /*context*/) const override {
    const Shape& input = input_shapes[0];
    auto state = std::make_unique<ExtremumState>();
    if (!has_dim_ || input.empty()) {
      state->split = AxisSplit{1, ShapeElementCount(input), 1};
      state->output_offsets = {0};
      return state;
    }
    const size_t axis = Axis(dim_, input.size());
    state->split = SplitAroundAxis(input, axis);
    // The output with keepdim has the input's layout with extent 1 at dim; without keepdim the
    // same elements, reshaped: walk the keepdim shape in logical order and record each offset.
    Shape kept = input;
    kept[axis] = 1;
    Shape dropped = kept;
    dropped.erase(dropped.begin() + static_cast<std::ptrdiff_t>(axis));
    const Shape& output = keepdim_ ? kept : dropped;
    const std::vector<size_t> output_strides = StorageStrides(output);
    const std::vector<size_t> input_strides = StorageStrides(input);
    const size_t count = ShapeElementCount(output);
    state->output_offsets.resize(count);
    // Logical index -> memory offset in the output, stored at the element's (outer, inner)
    // position in the input split.
    std::vector<size_t> index(kept.size(), 0);
    for (size_t element = 0; element < count; ++element) {
      size_t input_offset = 0;  // of the element's dim-0 slot
      size_t output_offset = 0;
      for (size_t d = 0, o = 0; d < kept.size(); ++d) {
        input_offset += index[d] * input_strides[d];
        if (d == axis && !keepdim_) continue;
        output_offset += index[d] * output_strides[o++];
      }
      // input_offset = outer * extent * inner + inner_index.
      const size_t block = state->split.extent * state->split.inner;
      const size_t position = input_offset / block * state->split.inner + input_offset % block;
      state->output_offsets[position] = output_offset;
      for (size_t d = kept.size(); d-- > 0;) {  // next logical index
        if (++index[d] < kept[d]) break;
        index[d] = 0;
      }
    }
    return state;
  }

  // Finds the extremum of every line along dim.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const ExtremumState& state = context.state_as<ExtremumState>();
    const AxisSplit& split = state.split;
    const float* source = inputs[0]->data();
    float* values = outputs[0]->data();
    float* indices = outputs.size() > 1 ? outputs[1]->data() : nullptr;
    ParallelFor(
        context.compute.pool, static_cast<std::ptrdiff_t>(split.outer),
        [&](std::ptrdiff_t outer) {
          for (size_t inner = 0; inner < split.inner; ++inner) {
            const float* line =
                source + static_cast<size_t>(outer) * split.extent * split.inner + inner;
            float best = line[0];
            size_t best_index = 0;
            for (size_t e = 1; e < split.extent && !std::isnan(best); ++e) {
              const float value = line[e * split.inner];
              if (std::isnan(value) || (maximum_ ? value > best : value < best)) {
                best = value;
                best_index = e;
              }
            }
            const size_t target =
                state.output_offsets[static_cast<size_t>(outer) * split.inner + inner];
            values[target] = best;
            if (indices != nullptr) indices[target] = static_cast<float>(best_index);
          }
        },
        Schedule::kStatic, inputs[0]->size() >= kParallelElements);
  }

 private:
  bool maximum_;
  bool has_dim_ = false;
  int dim_ = 0;
  bool keepdim_ = false;
  size_t outputs_ = 1;
};

LUMEN_REGISTER_LAYER(Extremum, "torch.max", "torch.min");

}  // namespace lumen
