#include "lumen/layer/slice.hpp"

#include <algorithm>
#include <limits>

#include "lumen/base/error.hpp"
#include "lumen/layer/layer_registry.hpp"
#include "lumen/tensor/strided.hpp"

namespace lumen {

Slice::Slice(const RuntimeOperator& op) : Layer(op) {
  if (op.HasParam("dims")) {
    dims_ = op.IntArrayParam("dims");
    starts_ = op.IntArrayParam("starts");
    ends_ = op.IntArrayParam("ends");
    steps_ = op.HasParam("steps") ? op.IntArrayParam("steps") : std::vector<int>(dims_.size(), 1);
    if (op.HasParam("selects")) {
      for (int select : op.IntArrayParam("selects")) {
        if (select != std::numeric_limits<int>::max()) {
          Fail("'selects' (indexing that drops a dimension) is not supported");
        }
      }
    }
  } else {
    dims_ = {op.IntParam("dim")};
    starts_ = {op.IntParam("start", 0)};
    ends_ = {op.IntParam("end", std::numeric_limits<int>::max())};
    steps_ = {op.IntParam("step", 1)};
  }
  if (starts_.size() != dims_.size() || ends_.size() != dims_.size() ||
      steps_.size() != dims_.size()) {
    Fail("dims, starts, ends and steps must have the same length");
  }
  for (int step : steps_) {
    if (step < 1) Fail(Concat("step must be positive, got ", step));
  }
}

void Slice::Prepare(const std::vector<Shape>& input_shapes,
                    const std::vector<Shape>& output_shapes) {
  CheckArity(input_shapes, output_shapes, 1, 1);
  const Shape& input = input_shapes[0];
  const Shape sample(input.begin() + 1, input.end());
  const std::vector<size_t> input_strides = StorageStrides(sample);
  Shape expected = input;
  strides_.assign(input_strides.begin(), input_strides.end());
  offset_ = 0;
  for (size_t i = 0; i < dims_.size(); ++i) {
    const size_t axis = SampleAxis(dims_[i], input.size());
    const int64_t size = sample[axis];
    const auto resolve = [size](int64_t index) {  // Python's rule for slice bounds
      if (index < 0) index += size;
      return std::clamp<int64_t>(index, 0, size);
    };
    const int64_t start = resolve(starts_[i]);
    const int64_t end = std::max(resolve(ends_[i]), start);
    expected[axis + 1] = static_cast<uint32_t>((end - start + steps_[i] - 1) / steps_[i]);
    offset_ += static_cast<std::ptrdiff_t>(start * input_strides[axis]);
    strides_[axis] *= steps_[i];
  }
  if (expected != output_shapes[0]) {
    Fail(Concat("input ", ShapeToString(input), " slices to ", ShapeToString(expected),
                " but the graph says ", ShapeToString(output_shapes[0])));
  }
}

void Slice::Forward(const std::vector<const TensorBatch*>& inputs,
                    const std::vector<TensorBatch*>& outputs) {
  for (size_t sample = 0; sample < inputs[0]->size(); ++sample) {
    GatherStrided((*inputs[0])[sample], offset_, strides_, &(*outputs[0])[sample]);
  }
}

LUMEN_REGISTER_LAYER(Slice, "Tensor.slice");

}  // namespace lumen
