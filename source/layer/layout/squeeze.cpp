// torch.squeeze: remove dimensions of extent 1 (one given dim, a list, or all of them).
#include <algorithm>
#include <vector>

#include "layer/layer_registry.hpp"
#include "layer/view_layer.hpp"
#include "lumen/error.hpp"

namespace lumen {

// Squeeze with PyTorch's rules: without dim every extent-1 dimension goes (the batch too, when it
// is 1: it is a dimension like any other); a named dimension whose extent is not 1 is left alone.
class Squeeze : public ViewLayer {
 public:
  // Reads dim: an int, a list, or absent / None for "every extent-1 dimension".
  explicit Squeeze(const LayerConfig& config);
  // The input's shape without the squeezed dimensions.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;

 private:
  bool all_ = true;
  std::vector<int> dims_;
};

Squeeze::Squeeze(const LayerConfig& config) : ViewLayer(config) {
  if (!config.HasParam("dim")) return;
  const Parameter& dim = config.Param("dim");
  if (dim.IsNone()) return;  // pnnx writes None and () alike for "no dim given"
  all_ = false;
  dims_ = dim.type() == Parameter::Type::kInt ? std::vector<int>{dim.AsInt()}
                                              : config.IntArrayParam("dim");
}

std::vector<Shape> Squeeze::OutputShapes(const std::vector<Shape>& input_shapes) const {
  CheckInputCount(input_shapes, 1);
  const Shape& input = input_shapes[0];
  std::vector<bool> removed(input.size(), false);
  if (all_) {
    for (size_t axis = 0; axis < input.size(); ++axis) removed[axis] = input[axis] == 1;
  } else {
    std::vector<bool> named(input.size(), false);
    for (int dim : dims_) {
      // A 0-d tensor accepts dim 0 or -1, as if it had one dimension, and stays 0-d.
      const size_t axis = Axis(dim, std::max<size_t>(input.size(), 1));
      if (input.empty()) continue;
      if (named[axis]) Fail(Concat("dim ", dim, " appears more than once in the dims to squeeze"));
      named[axis] = true;
      removed[axis] = input[axis] == 1;
    }
  }
  Shape output;
  for (size_t axis = 0; axis < input.size(); ++axis) {
    if (!removed[axis]) output.push_back(input[axis]);
  }
  return {output};
}

LUMEN_REGISTER_LAYER(Squeeze, "torch.squeeze", "Tensor.squeeze");

}  // namespace lumen
