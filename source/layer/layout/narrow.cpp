// torch.narrow: x.narrow(dim, start, length), the `length` elements from `start` along dim.
#include <memory>
#include <vector>

#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// Per session: where the narrowed part starts in the input's memory, and the input's strides.
struct NarrowState : LayerState {
  std::ptrdiff_t offset = 0;
  std::vector<std::ptrdiff_t> strides;
};

}  // namespace

// Unlike a slice, narrow does not clamp: a negative start counts from the end, and a range that
// does not fit in the extent is an error, as in PyTorch.
class Narrow : public Layer {
 public:
  // Reads dim, start and length.
  explicit Narrow(const LayerConfig& config)
      : Layer(config),
        dim_(config.IntParam("dim")),
        start_(config.IntParam("start")),
        length_(config.IntParam("length")) {
    if (length_ < 0) Fail(Concat("length must be non-negative, got ", length_));
  }

  // The input's shape with `length` along dim.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    const Shape& input = input_shapes[0];
    const size_t axis = Axis(dim_, input.size());
    Start(input, axis);
    Shape output = input;
    output[axis] = static_cast<uint32_t>(length_);
    return {output};
  }

  // Computes the offset of the first element.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& /*output_shapes*/,
                                      const PrepareContext& /*context*/) const override {
    const Shape& input = input_shapes[0];
    const size_t axis = Axis(dim_, input.size());
    const std::vector<size_t> strides = StorageStrides(input);
    auto state = std::make_unique<NarrowState>();
    state->strides.assign(strides.begin(), strides.end());
    state->offset = static_cast<std::ptrdiff_t>(Start(input, axis) * strides[axis]);
    return state;
  }

  // Gathers the narrowed part.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override {
    const NarrowState& state = context.state_as<NarrowState>();
    GatherStrided(*inputs[0], state.offset, state.strides, outputs[0], context.compute.pool);
  }

 private:
  // The start in [0, extent], failing when start or start + length fall outside the extent.
  size_t Start(const Shape& input, size_t axis) const {
    const int64_t extent = input[axis];
    if (start_ < -extent || start_ > extent) {
      Fail(Concat("start ", start_, " is out of range for dim ", dim_, " of extent ", extent,
                  " (input ", ShapeToString(input), ")"));
    }
    const int64_t start = start_ < 0 ? start_ + extent : start_;
    if (start + length_ > extent) {
      Fail(Concat("start (", start_, ") + length (", length_, ") exceeds the extent ", extent,
                  " of dim ", dim_, " (input ", ShapeToString(input), ")"));
    }
    return static_cast<size_t>(start);
  }

  int dim_;
  int start_;
  int length_;
};

LUMEN_REGISTER_LAYER(Narrow, "torch.narrow", "Tensor.narrow");

}  // namespace lumen
