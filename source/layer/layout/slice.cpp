// Tensor.slice: x[..., start:end:step, ...] along one or several dimensions.
#include <algorithm>
#include <limits>
#include <memory>
#include <vector>

#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "lumen/tensor.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// Basic slicing with Python's rules: negative indices count from the end, out-of-range bounds
// clamp (pnnx writes an open end as 2147483647), and the step is positive. Dimensions are of the
// whole tensor (0 is the batch). Several slices apply one after another, as chained indexing
// would, so a dimension may be sliced twice.
class Slice : public Layer {
 public:
  // Reads dim/start/end/step, or the list forms dims/starts/ends/steps.
  explicit Slice(const LayerConfig& config);
  // The input's shape with each sliced dimension's extent.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Computes where the first element is and the step of each dimension in the input's memory.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override;
  // Gathers the slice.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  // What slicing an input of this shape gives: the output shape, the memory offset of its first
  // element and each dimension's memory step in the input.
  struct Plan {
    Shape shape;
    std::ptrdiff_t offset = 0;
    std::vector<std::ptrdiff_t> strides;
  };
  // Resolves every slice against the input shape.
  Plan MakePlan(const Shape& input) const;

  std::vector<int> dims_, starts_, ends_, steps_;
};

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
