#include "lumen/layer/permute.hpp"

#include "lumen/base/error.hpp"
#include "lumen/layer/layer_registry.hpp"
#include "lumen/tensor/strided.hpp"

namespace lumen {

Permute::Permute(const RuntimeOperator& op) : Layer(op) { dims_ = op.IntArrayParam("dims"); }

void Permute::Prepare(const std::vector<Shape>& input_shapes,
                      const std::vector<Shape>& output_shapes) {
  CheckArity(input_shapes, output_shapes, 1, 1);
  const Shape& input = input_shapes[0];
  const size_t rank = input.size();
  if (dims_.size() != rank) {
    Fail(Concat("dims has ", dims_.size(), " entries for an input of rank ", rank));
  }
  const int first = dims_[0] < 0 ? dims_[0] + static_cast<int>(rank) : dims_[0];
  if (first != 0) Fail("the batch dimension must stay first");
  const Shape sample(input.begin() + 1, input.end());
  const std::vector<size_t> input_strides = StorageStrides(sample);
  std::vector<bool> used(rank, false);
  Shape expected{input[0]};
  strides_.clear();
  for (size_t j = 1; j < rank; ++j) {
    const size_t axis = SampleAxis(dims_[j], rank);
    if (used[axis]) Fail("dims repeats a dimension");
    used[axis] = true;
    expected.push_back(sample[axis]);
    strides_.push_back(static_cast<std::ptrdiff_t>(input_strides[axis]));
  }
  if (expected != output_shapes[0]) {
    Fail(Concat("input ", ShapeToString(input), " permutes to ", ShapeToString(expected),
                " but the graph says ", ShapeToString(output_shapes[0])));
  }
}

void Permute::Forward(const std::vector<const TensorBatch*>& inputs,
                      const std::vector<TensorBatch*>& outputs) {
  for (size_t sample = 0; sample < inputs[0]->size(); ++sample) {
    GatherStrided((*inputs[0])[sample], 0, strides_, &(*outputs[0])[sample]);
  }
}

LUMEN_REGISTER_LAYER(Permute, "torch.permute", "Tensor.permute");

}  // namespace lumen
