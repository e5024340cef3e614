#include "lumen/layer/flatten.hpp"

#include "lumen/base/error.hpp"
#include "lumen/layer/layer_registry.hpp"

namespace lumen {

Flatten::Flatten(const RuntimeOperator& op) : ViewLayer(op) {
  start_dim_ = op.IntParam("start_dim", 0);
  end_dim_ = op.IntParam("end_dim", -1);
}

void Flatten::Prepare(const std::vector<Shape>& input_shapes,
                      const std::vector<Shape>& output_shapes) {
  CheckArity(input_shapes, output_shapes, 1, 1);
  const Shape& input = input_shapes[0];
  const int rank = static_cast<int>(input.size());
  const int start = start_dim_ < 0 ? start_dim_ + rank : start_dim_;
  const int end = end_dim_ < 0 ? end_dim_ + rank : end_dim_;
  if (start < 0 || end >= rank || start > end) {
    Fail(Concat("start_dim ", start_dim_, " and end_dim ", end_dim_, " do not fit input ",
                ShapeToString(input)));
  }
  if (start == 0 && end > 0) {
    Fail("flattening the batch dimension into others is not supported (use start_dim >= 1)");
  }
  Shape expected(input.begin(), input.begin() + start);
  uint32_t merged = 1;
  for (int i = start; i <= end; ++i) merged *= input[i];
  expected.push_back(merged);
  expected.insert(expected.end(), input.begin() + end + 1, input.end());
  CheckOutput(input, expected, output_shapes[0]);
}

LUMEN_REGISTER_LAYER(Flatten, "torch.flatten");

}  // namespace lumen
