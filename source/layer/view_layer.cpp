#include "layer/view_layer.hpp"

#include <algorithm>

#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {

namespace {

// Below this many elements a copy stays on one thread: waking the others costs more.
constexpr size_t kParallelElements = 1 << 15;

}  // namespace

namespace {

// Per session: where each output sits in the input.
struct StridedViewState : LayerState {
  std::vector<StridedView> views;
};

}  // namespace

StatePointer StridedViewLayer::Prepare(const Shapes& input_shapes, const Shapes& /*output_shapes*/,
                                       const PrepareContext& /*context*/) const {
  auto state = std::make_unique<StridedViewState>();
  state->views = Views(input_shapes[0]);
  return state;
}

namespace {

// Per session: the planned copy.
struct StridedCopyState : LayerState {
  StridedCopy copy;
};

}  // namespace

StatePointer StridedCopyLayer::Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                                       const PrepareContext& /*context*/) const {
  auto state = std::make_unique<StridedCopyState>();
  state->copy = MakeStridedCopy(Copy(input_shapes, output_shapes));
  return state;
}

void StridedCopyLayer::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                               const ForwardContext& context) const {
  Prefill(inputs, outputs[0]);
  RunStridedCopy(context.state_as<StridedCopyState>().copy, inputs[SourceInput()]->data(),
                 outputs[0]->data(), context.compute.pool);
}

void StridedViewLayer::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                               const ForwardContext& context) const {
  const StridedViewState& state = context.state_as<StridedViewState>();
  for (size_t k = 0; k < outputs.size(); ++k) {
    GatherStrided(*inputs[0], state.views[k].offset, state.views[k].strides, outputs[k],
                  context.compute.pool);
  }
}

std::vector<std::ptrdiff_t> StridedViewLayer::SignedStrides(const Shape& input) {
  const std::vector<size_t> strides = StorageStrides(input);
  return std::vector<std::ptrdiff_t>(strides.begin(), strides.end());
}

StridedView StridedViewLayer::SliceView(const Shape& input, size_t axis, size_t index) {
  StridedView view;
  view.strides = SignedStrides(input);
  view.offset = static_cast<std::ptrdiff_t>(index) * view.strides[axis];
  view.strides.erase(view.strides.begin() + static_cast<std::ptrdiff_t>(axis));
  return view;
}

Shapes AxisViewLayer::OutputShapes(const Shapes& input_shapes) const {
  CheckInputCount(input_shapes, 1);
  const Shape& input = input_shapes[0];
  return OutputShapesAlong(input, Axis(dim_, input.size()));
}

std::vector<StridedView> AxisViewLayer::Views(const Shape& input) const {
  return ViewsAlong(input, Axis(dim_, input.size()));
}

Shape AxisViewLayer::WithoutAxis(const Shape& input, size_t axis) {
  Shape output = input;
  output.erase(output.begin() + static_cast<std::ptrdiff_t>(axis));
  return output;
}

void CopyRowMajorOrder(const Tensor& source, Tensor* target, ThreadPool* pool) {
  if (source.size() != target->size()) {
    throw Error(Concat("cannot copy a tensor of shape ", ShapeToString(source.shape()), " into ",
                       ShapeToString(target->shape())));
  }
  const size_t count = source.size();
  if (count == 0) return;
  const float* from = source.data();
  float* to = target->data();
  // Storage is row-major with the last two dimensions swapped (tensor.hpp): when both tensors
  // have the same last two extents, or neither has a real 2-D slice, the storage orders agree
  // and the copy is one memcpy, cut in chunks for the threads.
  const bool same_slices = source.rows() == target->rows() && source.cols() == target->cols();
  const bool both_flat =
      (source.rows() <= 1 || source.cols() <= 1) && (target->rows() <= 1 || target->cols() <= 1);
  if (same_slices || both_flat) {
    ParallelForRuns(pool, count, 1, [&](size_t begin, size_t end) {
      std::copy(from + begin, from + end, to + begin);
    });
    return;
  }
  // Otherwise walk the target one logical row (cols elements, consecutive in row-major order) at
  // a time, following the source with a (channel, row, col) counter.
  const size_t source_rows = source.rows();
  const size_t source_cols = source.cols();
  const size_t source_slice = source_rows * source_cols;
  const size_t target_rows = target->rows();
  const size_t target_cols = target->cols();
  const auto logical_rows = static_cast<std::ptrdiff_t>(count / target_cols);
  ParallelFor(
      pool, logical_rows,
      [&](std::ptrdiff_t logical_row) {
        const size_t start = static_cast<size_t>(logical_row) * target_cols;
        size_t channel = start / source_slice;
        size_t row = start % source_slice / source_cols;
        size_t col = start % source_cols;
        const size_t target_channel = static_cast<size_t>(logical_row) / target_rows;
        const size_t target_row = static_cast<size_t>(logical_row) % target_rows;
        float* run = to + target_channel * target_rows * target_cols + target_row;
        for (size_t i = 0; i < target_cols; ++i) {
          run[i * target_rows] = from[channel * source_slice + col * source_rows + row];
          if (++col == source_cols) {
            col = 0;
            if (++row == source_rows) {
              row = 0;
              ++channel;
            }
          }
        }
      },
      Schedule::kStatic, count >= kParallelElements);
}

Shapes ViewLayer::OutputShapes(const Shapes& input_shapes) const {
  CheckInputCount(input_shapes, 1);
  return {ViewShape(input_shapes[0])};
}

StatePointer ViewLayer::Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                                const PrepareContext& /*context*/) const {
  // A reshape between storage orders that differ walks both tensors element by element in
  // CopyRowMajorOrder; when the shapes nest (most reshapes: heads split off or merged) it is a
  // strided copy instead, of whole runs. One run left means the orders agree: CopyRowMajorOrder
  // copies it in chunks over the threads.
  auto state = std::make_unique<StridedCopyState>();
  if (!ReshapeAsStridedCopy(input_shapes[0], output_shapes[0], &state->copy) ||
      state->copy.extents.size() <= 1) {
    return nullptr;
  }
  return state;
}

bool ViewLayer::ViewThrough(const Shapes& input_shapes, const InputTensors& input_values,
                            StorageView* view) const {
  return ReshapeView(OutputShapesFromValues(input_shapes, input_values)[0], view);
}

void ViewLayer::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                        const ForwardContext& context) const {
  if (context.state != nullptr) {
    RunStridedCopy(context.state_as<StridedCopyState>().copy, inputs[0]->data(), outputs[0]->data(),
                   context.compute.pool);
    return;
  }
  CopyRowMajorOrder(*inputs[0], outputs[0], context.compute.pool);
}

}  // namespace lumen
