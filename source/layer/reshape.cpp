#include "lumen/layer/reshape.hpp"

#include "lumen/base/error.hpp"
#include "lumen/layer/layer_registry.hpp"

namespace lumen {

Reshape::Reshape(const RuntimeOperator& op) : ViewLayer(op) {
  shape_ = op.IntArrayParam("shape");
  int unknown = 0;
  for (int extent : shape_) {
    if (extent == -1) {
      ++unknown;
    } else if (extent < 0) {
      Fail(Concat("invalid extent ", extent, " in shape"));
    }
  }
  if (unknown > 1) Fail("only one dimension of shape can be -1");
}

void Reshape::Prepare(const std::vector<Shape>& input_shapes,
                      const std::vector<Shape>& output_shapes) {
  CheckArity(input_shapes, output_shapes, 1, 1);
  const Shape& input = input_shapes[0];
  const size_t count = ShapeElementCount(input);
  size_t known = 1;
  for (int extent : shape_) known *= extent == -1 ? 1 : static_cast<size_t>(extent);
  Shape target;
  for (int extent : shape_) {
    // -1 takes whatever is left, as in PyTorch; it must divide exactly.
    target.push_back(static_cast<uint32_t>(extent == -1 ? (known ? count / known : 0) : extent));
  }
  if (ShapeElementCount(target) != count) {
    Fail(Concat("cannot reshape ", ShapeToString(input), " (", count, " elements) to shape ",
                RuntimeParameter::FromIntArray(shape_).text()));
  }
  if (target.empty() || target[0] != input[0]) {
    Fail(Concat("reshaping ", ShapeToString(input), " to ", ShapeToString(target),
                " moves elements across the batch dimension, which is not supported"));
  }
  CheckOutput(input, target, output_shapes[0]);
}

LUMEN_REGISTER_LAYER(Reshape, "Tensor.reshape", "Tensor.view", "torch.reshape");

}  // namespace lumen
