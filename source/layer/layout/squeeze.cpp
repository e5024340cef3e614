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
  explicit Squeeze(const LayerConfig& config) : ViewLayer(config) {
    if (!config.HasParam("dim")) return;
    const Parameter& dim = config.Param("dim");
    if (dim.IsNone()) return;  // pnnx writes None and () alike for "no dim given"
    all_ = false;
    dims_ = dim.type() == Parameter::Type::kInt ? std::vector<int>{dim.AsInt()}
                                                : config.IntArrayParam("dim");
  }

 protected:
  // The input's shape without the squeezed dimensions.
  Shape ViewShape(const Shape& input) const override;

 private:
  bool all_ = true;
  std::vector<int> dims_;
};

Shape Squeeze::ViewShape(const Shape& input) const {
  // Without dim every extent-1 dimension goes; a named dimension only if its extent is 1.
  const std::vector<bool> named =
      all_ ? std::vector<bool>(input.size(), true) : NamedAxes(dims_, input.size());
  Shape output;
  for (size_t axis = 0; axis < input.size(); ++axis) {
    if (!named[axis] || input[axis] != 1) output.push_back(input[axis]);
  }
  return output;
}

LUMEN_REGISTER_LAYER(Squeeze, "torch.squeeze", "Tensor.squeeze");

}  // namespace lumen
