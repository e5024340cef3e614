#include "lumen/layer/unsqueeze.hpp"

#include "lumen/base/error.hpp"
#include "lumen/layer/layer_registry.hpp"

namespace lumen {

Unsqueeze::Unsqueeze(const RuntimeOperator& op) : ViewLayer(op) { dim_ = op.IntParam("dim"); }

void Unsqueeze::Prepare(const std::vector<Shape>& input_shapes,
                        const std::vector<Shape>& output_shapes) {
  CheckArity(input_shapes, output_shapes, 1, 1);
  const Shape& input = input_shapes[0];
  // The new dimension is a dimension of the output, which has one more than the input.
  const size_t axis = SampleAxis(dim_, input.size() + 1) + 1;
  Shape expected = input;
  expected.insert(expected.begin() + static_cast<std::ptrdiff_t>(axis), 1);
  CheckOutput(input, expected, output_shapes[0]);
}

LUMEN_REGISTER_LAYER(Unsqueeze, "torch.unsqueeze", "Tensor.unsqueeze");

}  // namespace lumen
