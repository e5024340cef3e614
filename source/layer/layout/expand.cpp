// Tensor.expand / Tensor.expand_as: broadcast a tensor to a larger shape by repeating its
// extent-1 dimensions (and adding leading ones), without changing any value. lumen.Expand (ONNX's
// Expand) broadcasts the input and the shape input 1 holds against each other.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// Per session: the input's memory step for each output dimension (0 where it is broadcast).
struct ExpandState : LayerState {
  std::vector<std::ptrdiff_t> strides;
};

}  // namespace

// PyTorch's expand rules: `sizes` may be longer than the input's rank (new leading dimensions,
// which cannot be -1); -1 keeps a dimension; any other size must equal the input's extent, or the
// input's extent must be 1. Tensor.expand_as takes the sizes from its second input's shape.
// lumen.Expand takes them from its second input's values (known when a session plans), with
// ONNX's rule: the two shapes broadcast, so an extent of 1 there keeps the input's extent, and the
// shape may be shorter than the input's rank.
class Expand : public Layer {
 public:
  // Reads sizes (Tensor.expand) or expects a second input (Tensor.expand_as, lumen.Expand).
  explicit Expand(const LayerConfig& config)
      : Layer(config),
        from_other_(config.type() == "Tensor.expand_as"),
        from_values_(config.type() == "lumen.Expand") {
    if (!from_other_ && !from_values_) {
      const Parameter& sizes = config.Param("sizes");
      sizes_ = sizes.type() == Parameter::Type::kInt ? std::vector<int>{sizes.AsInt()}
                                                     : config.IntArrayParam("sizes");
    }
  }

  // The expanded shape.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    if (from_values_) FailWithoutValues();
    CheckInputCount(input_shapes, from_other_ ? 2 : 1);
    std::vector<int64_t> sizes;
    if (from_other_) {
      sizes.assign(input_shapes[1].begin(), input_shapes[1].end());
    } else {
      sizes.assign(sizes_.begin(), sizes_.end());
    }
    return {ExpandedShape(input_shapes[0], sizes)};
  }

  // lumen.Expand's shape is the values of input 1.
  std::vector<size_t> ShapeValueInputs() const override {
    return from_values_ ? std::vector<size_t>{1} : std::vector<size_t>{};
  }

  // For lumen.Expand: the input and input 1's values broadcast against each other, written as
  // Tensor.expand's sizes (-1 where the target's 1 keeps the input's extent).
  Shapes OutputShapesFromValues(const Shapes& input_shapes,
                                const InputTensors& input_values) const override {
    if (!from_values_) return OutputShapes(input_shapes);
    CheckInputCount(input_shapes, 2);
    const Shape& input = input_shapes[0];
    const std::vector<int64_t> target = ShapeOperandValues(input_shapes, input_values, 1);
    const size_t rank = std::max(target.size(), input.size());
    std::vector<int64_t> sizes(rank, -1);
    for (size_t d = 0; d < rank; ++d) {
      const bool in_target = d + target.size() >= rank;
      const bool in_input = d + input.size() >= rank;
      const int64_t extent = in_target ? target[d + target.size() - rank] : 1;
      if (!(in_input && extent == 1)) sizes[d] = extent;
    }
    return {ExpandedShape(input, sizes)};
  }

  // Computes the input's strides for the output dimensions.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                       const PrepareContext& /*context*/) const override {
    const Shape& input = input_shapes[0];
    const Shape& output = output_shapes[0];
    const std::vector<size_t> strides = StorageStrides(input);
    const size_t added = output.size() - input.size();
    auto state = std::make_unique<ExpandState>();
    state->strides.assign(output.size(), 0);
    for (size_t d = 0; d < input.size(); ++d) {
      if (input[d] != 1) state->strides[d + added] = static_cast<std::ptrdiff_t>(strides[d]);
    }
    return state;
  }

  // Gathers the output, reading broadcast dimensions with step 0.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const ExpandState& state = context.state_as<ExpandState>();
    GatherStrided(*inputs[0], 0, state.strides, outputs[0], context.compute.pool);
  }

 private:
  // The shape `input` expands to with PyTorch's `sizes`.
  Shape ExpandedShape(const Shape& input, const std::vector<int64_t>& sizes) const {
    if (sizes.size() < input.size()) {
      Fail(Concat("the number of sizes (", sizes.size(), ") must be at least the input's rank ",
                  input.size(), " (input ", ShapeToString(input), ")"));
    }
    const size_t added = sizes.size() - input.size();
    Shape output(sizes.size());
    for (size_t d = 0; d < sizes.size(); ++d) {
      const int64_t size = sizes[d];
      if (d < added) {
        if (size < 0) {
          Fail(Concat("size ", size, " is not allowed for the new leading dimension ", d));
        }
        output[d] = static_cast<uint32_t>(size);
        continue;
      }
      const uint32_t extent = input[d - added];
      if (size == -1 || size == extent) {
        output[d] = extent;
      } else if (extent == 1 && size >= 0) {
        output[d] = static_cast<uint32_t>(size);
      } else {
        Fail(Concat("cannot expand ", ShapeToString(input), " to ", SizesText(sizes),
                    ": dimension ", d, " has extent ", extent, " (only extent 1 may change)"));
      }
    }
    return output;
  }

  // "(2,-1,4)" for messages.
  static std::string SizesText(const std::vector<int64_t>& sizes) {
    std::string text = "(";
    for (size_t i = 0; i < sizes.size(); ++i) text += (i > 0 ? "," : "") + std::to_string(sizes[i]);
    return text + ")";
  }

  bool from_other_;
  bool from_values_;
  std::vector<int> sizes_;
};

LUMEN_REGISTER_LAYER(Expand, "Tensor.expand", "Tensor.expand_as", "lumen.Expand");

}  // namespace lumen
