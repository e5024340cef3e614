#include "layer/layout/slice.hpp"

#include <algorithm>
#include <limits>

#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {

namespace {

// Per session: the gather for this input shape.
struct SliceState : LayerState {
  std::ptrdiff_t offset = 0;
  std::vector<std::ptrdiff_t> strides;
};

}  // namespace

Slice::Slice(const LayerConfig& config) : Layer(config) {
  if (config.HasParam("dims")) {
    dims_ = config.IntArrayParam("dims");
    starts_ = config.IntArrayParam("starts");
    ends_ = config.IntArrayParam("ends");
    steps_ = config.HasParam("steps") ? config.IntArrayParam("steps")
                                      : std::vector<int>(dims_.size(), 1);
    if (config.HasParam("selects")) {
      for (int select : config.IntArrayParam("selects")) {
        if (select != std::numeric_limits<int>::max()) {
          Fail("'selects' (indexing that drops a dimension) is not supported");
        }
      }
    }
  } else {
    dims_ = {config.IntParam("dim")};
    starts_ = {config.IntParam("start", 0)};
    ends_ = {config.IntParam("end", std::numeric_limits<int>::max())};
    steps_ = {config.IntParam("step", 1)};
  }
  if (starts_.size() != dims_.size() || ends_.size() != dims_.size() ||
      steps_.size() != dims_.size()) {
    Fail("dims, starts, ends and steps must have the same length");
  }
  for (int step : steps_) {
    if (step < 1) Fail(Concat("step must be positive, got ", step));
  }
}

Slice::Plan Slice::MakePlan(const Shape& input) const {
  Plan plan;
  plan.shape = input;
  const std::vector<size_t> strides = StorageStrides(input);
  plan.strides.assign(strides.begin(), strides.end());
  for (size_t i = 0; i < dims_.size(); ++i) {
    const size_t axis = Axis(dims_[i], input.size());
    const int64_t size = plan.shape[axis];
    const auto resolve = [size](int64_t index) {  // Python's rule for slice bounds
      if (index < 0) index += size;
      return std::clamp<int64_t>(index, 0, size);
    };
    const int64_t start = resolve(starts_[i]);
    const int64_t end = std::max(resolve(ends_[i]), start);
    plan.shape[axis] = static_cast<uint32_t>((end - start + steps_[i] - 1) / steps_[i]);
    plan.offset += static_cast<std::ptrdiff_t>(start) * plan.strides[axis];
    plan.strides[axis] *= steps_[i];
  }
  return plan;
}

std::vector<Shape> Slice::OutputShapes(const std::vector<Shape>& input_shapes) const {
  CheckInputCount(input_shapes, 1);
  return {MakePlan(input_shapes[0]).shape};
}

std::unique_ptr<LayerState> Slice::Prepare(const std::vector<Shape>& input_shapes,
                                           const std::vector<Shape>& /*output_shapes*/,
                                           const PrepareContext& /*context*/) const {
  Plan plan = MakePlan(input_shapes[0]);
  auto state = std::make_unique<SliceState>();
  state->offset = plan.offset;
  state->strides = std::move(plan.strides);
  return state;
}

void Slice::Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
                    const ForwardContext& context) const {
  const SliceState& state = context.state_as<SliceState>();
  GatherStrided(*inputs[0], state.offset, state.strides, outputs[0], context.compute.pool);
}

LUMEN_REGISTER_LAYER(Slice, "Tensor.slice");

}  // namespace lumen
