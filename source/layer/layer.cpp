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

void Layer::Fail(const std::string& message) const {
  throw Error(Concat(description_, ": ", message));
}

}  // namespace lumen
