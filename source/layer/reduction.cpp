#include "lumen/layer/reduction.hpp"

#include <algorithm>

#include "lumen/base/error.hpp"
#include "lumen/layer/layer_registry.hpp"

namespace lumen {

Reduction::Reduction(const RuntimeOperator& op) : Layer(op) {
  mean_ = op.type == "torch.mean" || op.type == "Tensor.mean";
  const RuntimeParameter& dim = op.Param("dim");
  dims_ = dim.type() == RuntimeParameter::Type::kInt ? std::vector<int>{dim.AsInt()}
                                                     : op.IntArrayParam("dim");
  if (dims_.empty()) Fail("reducing over every dimension (batch included) is not supported");
  keepdim_ = op.BoolParam("keepdim", false);
}

void Reduction::Prepare(const std::vector<Shape>& input_shapes,
                        const std::vector<Shape>& output_shapes) {
  CheckArity(input_shapes, output_shapes, 1, 1);
  const Shape& input = input_shapes[0];
  kept_shape_.assign(input.begin() + 1, input.end());
  std::vector<bool> reduced(kept_shape_.size(), false);
  size_t count = 1;
  for (int dim : dims_) {
    const size_t axis = SampleAxis(dim, input.size());
    if (reduced[axis]) Fail(Concat("dim ", dim, " is listed twice"));
    reduced[axis] = true;
    count *= kept_shape_[axis];
    kept_shape_[axis] = 1;
  }
  Shape expected{input[0]};
  for (size_t axis = 0; axis < kept_shape_.size(); ++axis) {
    if (keepdim_ || !reduced[axis]) expected.push_back(kept_shape_[axis]);
  }
  if (expected != output_shapes[0]) {
    Fail(Concat("input ", ShapeToString(input), " reduces to ", ShapeToString(expected),
                " but the graph says ", ShapeToString(output_shapes[0])));
  }
  scale_ = mean_ ? 1.0 / static_cast<double>(count) : 1.0;
  walk_ = std::make_unique<BroadcastWalk>(Shape(input.begin() + 1, input.end()),
                                          std::vector<Shape>{kept_shape_});
  sums_.assign(ShapeElementCount(kept_shape_), 0.0);
  kept_ = Tensor(kept_shape_);
}

void Reduction::Forward(const std::vector<const TensorBatch*>& inputs,
                        const std::vector<TensorBatch*>& outputs) {
  const size_t stride = walk_->inner_stride(0);
  for (size_t sample = 0; sample < inputs[0]->size(); ++sample) {
    const float* source = (*inputs[0])[sample].data();
    std::fill(sums_.begin(), sums_.end(), 0.0);
    // Sequential: different runs may add into the same output element.
    walk_->ForEachRun(
        [&](const BroadcastWalk::Run& run) {
          const float* values = source + run.result_offset;
          double* sums = sums_.data() + run.operand_offsets[0];
          for (size_t i = 0; i < run.count; ++i) sums[i * stride] += values[i];
        },
        /*parallel=*/false);
    // The sums are in the memory order of the kept shape; without keepdim the output drops the
    // extent-1 dimensions, which keeps the row-major order but may change the memory order.
    float* kept = kept_.data();
    for (size_t i = 0; i < sums_.size(); ++i) kept[i] = static_cast<float>(sums_[i] * scale_);
    CopyReshaped(kept_, &(*outputs[0])[sample]);
  }
}

LUMEN_REGISTER_LAYER(Reduction, "torch.mean", "Tensor.mean", "torch.sum", "Tensor.sum");

}  // namespace lumen
