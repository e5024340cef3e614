// torch.flip: reverses the order of elements along the given dimensions.
#include <memory>
#include <vector>

#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// Per session: where the gather starts (the last element along each flipped dimension) and each
// dimension's step (negative where flipped).
struct FlipState : LayerState {
  std::ptrdiff_t offset = 0;
  std::vector<std::ptrdiff_t> strides;
};

}  // namespace

// A gather that walks each flipped dimension backwards. PyTorch refuses a dimension listed twice.
class Flip : public Layer {
 public:
  // Reads dims (a list, or a single int).
  explicit Flip(const LayerConfig& config) : Layer(config) {
    const Parameter& dims = config.Param("dims");
    dims_ = dims.type() == Parameter::Type::kInt ? std::vector<int>{dims.AsInt()}
                                                 : config.IntArrayParam("dims");
  }

  // The input's shape; fails on a dimension out of range or listed twice.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    Flipped(input_shapes[0].size());
    return {input_shapes[0]};
  }

  // Computes the backward walk.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& /*output_shapes*/,
                                      const PrepareContext& /*context*/) const override {
    const Shape& shape = input_shapes[0];
    const std::vector<bool> flipped = Flipped(shape.size());
    const std::vector<size_t> strides = StorageStrides(shape);
    auto state = std::make_unique<FlipState>();
    for (size_t d = 0; d < shape.size(); ++d) {
      auto stride = static_cast<std::ptrdiff_t>(strides[d]);
      if (flipped[d] && shape[d] > 0) {
        state->offset += static_cast<std::ptrdiff_t>(shape[d] - 1) * stride;
        stride = -stride;
      }
      state->strides.push_back(stride);
    }
    return state;
  }

  // Gathers the reversed tensor.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override {
    const FlipState& state = context.state_as<FlipState>();
    GatherStrided(*inputs[0], state.offset, state.strides, outputs[0], context.compute.pool);
  }

 private:
  // Per dimension of a rank-`rank` input, whether it is flipped.
  std::vector<bool> Flipped(size_t rank) const {
    std::vector<bool> flipped(rank, false);
    for (int dim : dims_) {
      const size_t axis = Axis(dim, rank);
      if (flipped[axis]) Fail(Concat("dim ", dim, " appears multiple times in dims"));
      flipped[axis] = true;
    }
    return flipped;
  }

  std::vector<int> dims_;
};

LUMEN_REGISTER_LAYER(Flip, "torch.flip", "Tensor.flip");

}  // namespace lumen
