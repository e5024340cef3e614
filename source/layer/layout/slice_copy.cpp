// Tensor.slice_copy: pnnx's form of an assignment into a slice, x[2:10, ..., 3] = src: the result
// is x with src written over that slice (src broadcast to the slice's shape, as copy_ does).
#include <algorithm>
#include <memory>
#include <vector>

#include "layer/indexing/coordinates.hpp"
#include "layer/layer_registry.hpp"
#include "layer/layout/slice_plan.hpp"
#include "lumen/error.hpp"
#include "tensor/broadcast.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// Per session: the copy of src into the slice of the result.
struct SliceCopyState : LayerState {
  StridedCopy copy;
};

}  // namespace

// Copies $self whole, then scatters $src into the slice with one strided copy whose target is the
// slice's view of the result (the parameters are Tensor.slice's).
class SliceCopy : public SlicingLayer {
 public:
  // Reads the slice and finds the operands by role.
  explicit SliceCopy(const LayerConfig& config)
      : SlicingLayer(config),
        self_(std::max(config.InputIndexOfRole("self"), 0)),
        source_(config.InputIndexOfRole("src", 1)) {}

  // self's shape; fails when src does not broadcast to the slice.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 2);
    const Shape& self = input_shapes[self_];
    const Shape& source = input_shapes[source_];
    const Shape slice = MakePlan(self).shape;
    bool fits = source.size() <= slice.size();
    for (size_t d = 0; fits && d < source.size(); ++d) {
      const uint32_t extent = slice[slice.size() - source.size() + d];
      fits = source[d] == extent || source[d] == 1;
    }
    if (!fits) {
      Fail(Concat("src ", ShapeToString(source), " does not broadcast to the slice ",
                  ShapeToString(slice), " of ", ShapeToString(self)));
    }
    return {self};
  }

  // Plans the copy of src into the slice.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& /*output_shapes*/,
                       const PrepareContext& /*context*/) const override {
    const SlicePlan plan = MakePlan(input_shapes[self_]);
    const std::vector<size_t> source_strides = BroadcastStrides(input_shapes[source_], plan.shape);
    StridedCopy copy;
    copy.extents.assign(plan.shape.begin(), plan.shape.end());
    copy.source_strides.assign(source_strides.begin(), source_strides.end());
    copy.target_strides = plan.strides;
    copy.target_offset = plan.offset;
    auto state = std::make_unique<SliceCopyState>();
    state->copy = MakeStridedCopy(copy);
    return state;
  }

  // Copies self, then src into the slice.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const Tensor& self = *inputs[self_];
    std::copy(self.data(), self.data() + self.size(), outputs[0]->data());
    RunStridedCopy(context.state_as<SliceCopyState>().copy, inputs[source_]->data(),
                   outputs[0]->data(), context.compute.pool);
  }

 private:
  size_t self_;
  size_t source_;
};

LUMEN_REGISTER_LAYER(SliceCopy, "Tensor.slice_copy");

}  // namespace lumen
