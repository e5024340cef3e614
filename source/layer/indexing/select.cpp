// Tensor.select: x.select(dim, index), the slice at one index with that dimension removed.
#include <vector>

#include "layer/layer_registry.hpp"
#include "layer/view_layer.hpp"
#include "lumen/error.hpp"

namespace lumen {

// Selects one index along one dimension of any tensor (the batch included); negative dims and
// indices count from the end, as in PyTorch.
class Select : public AxisViewLayer {
 public:
  // Reads dim and index.
  explicit Select(const LayerConfig& config)
      : AxisViewLayer(config, config.IntParam("dim")), index_(config.IntParam("index")) {}

 protected:
  // The input's shape without dim, after checking the index.
  Shapes OutputShapesAlong(const Shape& input, size_t axis) const override {
    ResolvedIndex(input, axis);
    return {WithoutAxis(input, axis)};
  }

  // The slice at the index.
  std::vector<StridedView> ViewsAlong(const Shape& input, size_t axis) const override {
    return {SliceView(input, axis, ResolvedIndex(input, axis))};
  }

 private:
  // The index as a position in [0, extent); throws lumen::Error naming the layer when it is out
  // of range, as PyTorch does.
  size_t ResolvedIndex(const Shape& input, size_t axis) const {
    const int64_t extent = input[axis];
    const int64_t index = index_ < 0 ? index_ + extent : index_;
    if (index < 0 || index >= extent) {
      Fail(Concat("index ", index_, " is out of range for dim ", dim(), " of extent ", extent,
                  " (input ", ShapeToString(input), ")"));
    }
    return static_cast<size_t>(index);
  }

  int index_;
};

LUMEN_REGISTER_LAYER(Select, "Tensor.select");

}  // namespace lumen
