#include "layer/layout/permute.hpp"

#include <utility>

#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {

namespace {

// Per session: where each output dimension steps in the input's memory.
struct PermuteState : LayerState {
  std::vector<std::ptrdiff_t> strides;
};

}  // namespace

Permute::Permute(const LayerConfig& config) : Layer(config), dims_(config.IntArrayParam("dims")) {}

std::vector<size_t> Permute::Order(size_t rank) const {
  if (dims_.size() != rank) {
    Fail(Concat("dims has ", dims_.size(), " entries for an input of rank ", rank));
  }
  std::vector<size_t> order;
  std::vector<bool> used(rank, false);
  for (int dim : dims_) {
    const size_t axis = Axis(dim, rank);
    if (used[axis]) Fail(Concat("dims repeats dimension ", axis));
    used[axis] = true;
    order.push_back(axis);
  }
  return order;
}

std::vector<size_t> Permute::DimensionOrder(size_t rank) const {
  try {
    return Order(rank);
  } catch (const Error&) {  // dims for another rank: a pass asking about rank 4 gets no answer
    return {};
  }
}

bool Permute::ViewThrough(const Shapes& /*input_shapes*/, const InputTensors& /*input_values*/,
                          StorageView* view) const {
  const std::vector<size_t> order = Order(view->shape.size());
  StorageView permuted = *view;
  for (size_t axis = 0; axis < order.size(); ++axis) {
    permuted.shape[axis] = view->shape[order[axis]];
    permuted.strides[axis] = view->strides[order[axis]];
  }
  *view = std::move(permuted);
  return true;
}

Shapes Permute::OutputShapes(const Shapes& input_shapes) const {
  CheckInputCount(input_shapes, 1);
  const Shape& input = input_shapes[0];
  Shape output;
  for (size_t axis : Order(input.size())) output.push_back(input[axis]);
  return {output};
}

StatePointer Permute::Prepare(const Shapes& input_shapes, const Shapes& /*output_shapes*/,
                              const PrepareContext& /*context*/) const {
  const Shape& input = input_shapes[0];
  const std::vector<size_t> input_strides = StorageStrides(input);
  auto state = std::make_unique<PermuteState>();
  for (size_t axis : Order(input.size())) {
    state->strides.push_back(static_cast<std::ptrdiff_t>(input_strides[axis]));
  }
  return state;
}

void Permute::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                      const ForwardContext& context) const {
  GatherStrided(*inputs[0], 0, context.state_as<PermuteState>().strides, outputs[0],
                context.compute.pool);
}

LUMEN_REGISTER_LAYER(Permute, "torch.permute", "Tensor.permute");

}  // namespace lumen
