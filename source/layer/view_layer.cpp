#include "lumen/layer/view_layer.hpp"

#include "lumen/base/error.hpp"

namespace lumen {

void ViewLayer::Forward(const std::vector<const TensorBatch*>& inputs,
                        const std::vector<TensorBatch*>& outputs) {
  for (size_t sample = 0; sample < inputs[0]->size(); ++sample) {
    CopyReshaped((*inputs[0])[sample], &(*outputs[0])[sample]);
  }
}

void ViewLayer::CheckOutput(const Shape& input, const Shape& expected, const Shape& output) const {
  if (expected != output) {
    Fail(Concat("input ", ShapeToString(input), " gives ", ShapeToString(expected),
                " but the graph says ", ShapeToString(output)));
  }
}

}  // namespace lumen
