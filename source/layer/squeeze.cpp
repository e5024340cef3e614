#include "lumen/layer/squeeze.hpp"

#include <algorithm>

#include "lumen/base/error.hpp"
#include "lumen/layer/layer_registry.hpp"

namespace lumen {

Squeeze::Squeeze(const RuntimeOperator& op) : ViewLayer(op) {
  if (!op.HasParam("dim") || op.Param("dim").IsNone()) return;
  const RuntimeParameter& dim = op.Param("dim");
  dims_ = dim.type() == RuntimeParameter::Type::kInt ? std::vector<int>{dim.AsInt()}
                                                     : op.IntArrayParam("dim");
}

void Squeeze::Prepare(const std::vector<Shape>& input_shapes,
                      const std::vector<Shape>& output_shapes) {
  CheckArity(input_shapes, output_shapes, 1, 1);
  const Shape& input = input_shapes[0];
  std::vector<bool> removed(input.size(), false);
  if (dims_.empty()) {
    for (size_t axis = 1; axis < input.size(); ++axis) removed[axis] = input[axis] == 1;
  } else {
    for (int dim : dims_) {
      const size_t axis = SampleAxis(dim, input.size()) + 1;
      removed[axis] = input[axis] == 1;
    }
  }
  Shape expected;
  for (size_t axis = 0; axis < input.size(); ++axis) {
    if (!removed[axis]) expected.push_back(input[axis]);
  }
  CheckOutput(input, expected, output_shapes[0]);
}

LUMEN_REGISTER_LAYER(Squeeze, "torch.squeeze", "Tensor.squeeze");

}  // namespace lumen
