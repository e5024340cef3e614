// torch.roll: shifts elements along dimensions, those pushed past the end coming back at the start.
#include <memory>
#include <vector>

#include "layer/indexing/coordinates.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// Per session: the copies that move each rolled block (two per rolled dimension, combined), or
// nothing when the roll is over the flattened tensor.
struct RollState : LayerState {
  std::vector<StridedCopy> copies;
  size_t flat_shift = 0;        // dims=None: the shift of the row-major element list, in [0, size)
  std::vector<size_t> strides;  // dims=None: the tensor's storage strides
};

// A list parameter that pnnx may also write as a single int ("shifts=3").
std::vector<int> IntOrIntList(const LayerConfig& config, const std::string& key) {
  const Parameter& parameter = config.Param(key);
  if (parameter.type() == Parameter::Type::kInt) return {parameter.AsInt()};
  return config.IntArrayParam(key);
}

// `shift` reduced to [0, extent), as Python's modulo does for a negative shift.
size_t Wrapped(int64_t shift, size_t extent) {
  if (extent == 0) return 0;
  const auto signed_extent = static_cast<int64_t>(extent);
  return static_cast<size_t>(((shift % signed_extent) + signed_extent) % signed_extent);
}

}  // namespace

// With dims, output index i along a rolled dimension of extent n reads input index
// (i - shift) mod n: the output's range [shift, n) is the input's [0, n - shift) and the output's
// [0, shift) is the input's [n - shift, n). Each combination of those ranges over the rolled
// dimensions is one strided block copy. Without dims (dims=None) the tensor is rolled as the
// flat row-major list of its elements and keeps its shape, as PyTorch does. A dimension listed
// twice is rolled twice (the shifts add), and shifts larger than the extent wrap.
class Roll : public Layer {
 public:
  // Reads shifts and dims (None, an int or a list as long as shifts).
  explicit Roll(const LayerConfig& config)
      : Layer(config), shifts_(IntOrIntList(config, "shifts")) {
    if (config.HasParam("dims") && !config.Param("dims").IsNone()) {
      dims_ = IntOrIntList(config, "dims");
      if (dims_.size() != shifts_.size()) {
        Fail(Concat("shifts and dims must have the same length, got shifts=",
                    config.Param("shifts").text(), " and dims=", config.Param("dims").text()));
      }
    } else if (shifts_.size() != 1) {
      Fail(Concat("without dims, shifts must be one number, got ", config.Param("shifts").text()));
    }
  }

  // The input's shape.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    for (int dim : dims_) Axis(dim, input_shapes[0].size());
    return {input_shapes[0]};
  }

  // Plans the block copies (or the flat shift) for this shape.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& /*output_shapes*/,
                       const PrepareContext& /*context*/) const override {
    const Shape& shape = input_shapes[0];
    auto state = std::make_unique<RollState>();
    if (dims_.empty()) {
      state->flat_shift = Wrapped(shifts_[0], ShapeElementCount(shape));
      state->strides = StorageStrides(shape);
      return state;
    }
    std::vector<int64_t> total_shift(shape.size(), 0);
    for (size_t i = 0; i < dims_.size(); ++i)
      total_shift[Axis(dims_[i], shape.size())] += shifts_[i];
    const std::vector<size_t> strides = StorageStrides(shape);
    // Start from one copy of everything and split it in two along each rolled dimension.
    StridedCopy whole;
    for (size_t d = 0; d < shape.size(); ++d) {
      whole.extents.push_back(shape[d]);
      whole.source_strides.push_back(static_cast<std::ptrdiff_t>(strides[d]));
      whole.target_strides.push_back(static_cast<std::ptrdiff_t>(strides[d]));
    }
    std::vector<StridedCopy> copies = {whole};
    for (size_t d = 0; d < shape.size(); ++d) {
      const size_t shift = Wrapped(total_shift[d], shape[d]);
      if (shift == 0) continue;
      const auto stride = static_cast<std::ptrdiff_t>(strides[d]);
      std::vector<StridedCopy> split;
      for (const StridedCopy& copy : copies) {
        StridedCopy tail = copy;  // input [0, n - shift) -> output [shift, n)
        tail.extents[d] = shape[d] - shift;
        tail.target_offset += static_cast<std::ptrdiff_t>(shift) * stride;
        StridedCopy head = copy;  // input [n - shift, n) -> output [0, shift)
        head.extents[d] = shift;
        head.source_offset += static_cast<std::ptrdiff_t>(shape[d] - shift) * stride;
        split.push_back(tail);
        split.push_back(head);
      }
      copies = split;
    }
    for (const StridedCopy& copy : copies) state->copies.push_back(MakeStridedCopy(copy));
    return state;
  }

  // Moves the blocks, or rolls the flat element list.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const RollState& state = context.state_as<RollState>();
    const float* source = inputs[0]->data();
    float* target = outputs[0]->data();
    if (!dims_.empty()) {
      for (const StridedCopy& copy : state.copies) {
        RunStridedCopy(copy, source, target, context.compute.pool);
      }
      return;
    }
    const Shape& shape = inputs[0]->shape();
    const std::vector<size_t>& strides = state.strides;
    const size_t count = inputs[0]->size();
    size_t index = 0;  // row-major position of the output element
    ForEachCoordinate(shape, [&](const Coordinates& coordinates) {
      const size_t from = (index + count - state.flat_shift) % count;
      target[StorageOffsetOf(coordinates, strides)] =
          source[StorageOffsetOf(CoordinatesOfRowMajor(from, shape), strides)];
      ++index;
    });
  }

 private:
  std::vector<int> shifts_;
  std::vector<int> dims_;  // empty: roll the flattened tensor
};

LUMEN_REGISTER_LAYER(Roll, "torch.roll");

}  // namespace lumen
