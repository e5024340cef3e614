#include "lumen/layer/concatenate.hpp"

#include <algorithm>

#include "lumen/base/error.hpp"
#include "lumen/base/parallel.hpp"
#include "lumen/layer/layer_registry.hpp"
#include "lumen/tensor/strided.hpp"

namespace lumen {

Concatenate::Concatenate(const RuntimeOperator& op) : Layer(op) { dim_ = op.IntParam("dim", 0); }

void Concatenate::Prepare(const std::vector<Shape>& input_shapes,
                          const std::vector<Shape>& output_shapes) {
  if (input_shapes.empty() || output_shapes.size() != 1) {
    Fail("expected one or more inputs and one output");
  }
  const Shape& output = output_shapes[0];
  const size_t axis = SampleAxis(dim_, output.size());
  // Every input must match the first one outside dim; their extents along dim add up.
  Shape reference = input_shapes[0];
  reference[axis + 1] = 0;
  Shape expected = reference;
  for (const Shape& input : input_shapes) {
    Shape others = input;
    if (input.size() == output.size()) others[axis + 1] = 0;
    if (others != reference) {
      Fail(Concat("inputs ", ShapeToString(input_shapes[0]), " and ", ShapeToString(input),
                  " differ outside dim ", dim_));
    }
    expected[axis + 1] += input[axis + 1];
  }
  if (expected != output) {
    Fail(Concat("the inputs join to ", ShapeToString(expected), " but the graph says ",
                ShapeToString(output)));
  }
  const Shape sample(output.begin() + 1, output.end());
  outer_ = SplitAroundAxis(sample, axis).outer;
  block_sizes_.clear();
  for (const Shape& input : input_shapes) {
    const AxisSplit split = SplitAroundAxis(Shape(input.begin() + 1, input.end()), axis);
    block_sizes_.push_back(split.extent * split.inner);
  }
}

void Concatenate::Forward(const std::vector<const TensorBatch*>& inputs,
                          const std::vector<TensorBatch*>& outputs) {
  size_t output_block = 0;
  for (size_t size : block_sizes_) output_block += size;
  for (size_t sample = 0; sample < outputs[0]->size(); ++sample) {
    float* target = (*outputs[0])[sample].data();
    const auto outer = static_cast<std::ptrdiff_t>(outer_);
    ParallelFor(
        outer,
        [&](std::ptrdiff_t block) {
          float* position = target + static_cast<size_t>(block) * output_block;
          for (size_t input = 0; input < inputs.size(); ++input) {
            const float* source =
                (*inputs[input])[sample].data() + static_cast<size_t>(block) * block_sizes_[input];
            position = std::copy(source, source + block_sizes_[input], position);
          }
        },
        Schedule::kStatic, outer_ * output_block >= (1 << 15));
  }
}

LUMEN_REGISTER_LAYER(Concatenate, "torch.cat", "torch.concat");

}  // namespace lumen
