// Tensor.select: x.select(dim, index), the slice at one index with that dimension removed.
#include <vector>

#include "layer/layer_registry.hpp"
#include "layer/view_layer.hpp"
#include "lumen/error.hpp"

namespace lumen {

// Selects one index along one dimension of any tensor (the batch included); negative dims and
// indices count from the end, as in PyTorch.
class Select : public StridedViewLayer {
 public:
  // Reads dim and index.
  explicit Select(const LayerConfig& config)
      : StridedViewLayer(config), dim_(config.IntParam("dim")), index_(config.IntParam("index")) {}

  // The input's shape without dim.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    const Shape& input = input_shapes[0];
    const size_t axis = Axis(dim_, input.size());
    ResolvedIndex(input, axis);
    Shape output = input;
    output.erase(output.begin() + static_cast<std::ptrdiff_t>(axis));
    return {output};
  }

 protected:
  std::vector<StridedView> Views(const Shape& input) const override {
    const size_t axis = Axis(dim_, input.size());
    return {SliceView(input, axis, ResolvedIndex(input, axis))};
  }

 private:
  // The index as a position in [0, extent); throws lumen::Error naming the layer when it is out
  // of range, as PyTorch does.
  size_t ResolvedIndex(const Shape& input, size_t axis) const {
    const int64_t extent = input[axis];
    const int64_t index = index_ < 0 ? index_ + extent : index_;
    if (index < 0 || index >= extent) {
      Fail(Concat("index ", index_, " is out of range for dim ", dim_, " of extent ", extent,
                  " (input ", ShapeToString(input), ")"));
    }
    return static_cast<size_t>(index);
  }

  int dim_;
  int index_;
};

LUMEN_REGISTER_LAYER(Select, "Tensor.select");

}  // namespace lumen
