#include "lumen/layer/layer.hpp"

#include "lumen/base/error.hpp"

namespace lumen {

void Layer::Prepare(const std::vector<Shape>& /*input_shapes*/,
                    const std::vector<Shape>& /*output_shapes*/) {}

void Layer::CheckArity(const std::vector<Shape>& input_shapes,
                       const std::vector<Shape>& output_shapes, size_t inputs,
                       size_t outputs) const {
  if (input_shapes.size() != inputs || output_shapes.size() != outputs) {
    Fail(Concat("expected ", inputs, " input(s) and ", outputs, " output(s), got ",
                input_shapes.size(), " and ", output_shapes.size()));
  }
}

size_t Layer::SampleAxis(int dim, size_t full_rank) const {
  const int rank = static_cast<int>(full_rank);
  const int axis = dim < 0 ? dim + rank : dim;
  if (axis < 0 || axis >= rank) {
    Fail(Concat("dim ", dim, " is out of range for a tensor of rank ", rank));
  }
  if (axis == 0) Fail("operating on the batch dimension (dim 0) is not supported");
  return static_cast<size_t>(axis - 1);
}

void Layer::Fail(const std::string& message) const {
  throw Error(Concat(description_, ": ", message));
}

}  // namespace lumen
