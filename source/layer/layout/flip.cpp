// torch.flip: reverses the order of elements along the given dimensions.
#include <vector>

#include "layer/layer_registry.hpp"
#include "layer/view_layer.hpp"
#include "lumen/error.hpp"

namespace lumen {

// A view that walks each flipped dimension backwards: it starts at the last element along each
// and steps by minus the stride. PyTorch refuses a dimension listed twice.
class Flip : public StridedViewLayer {
 public:
  // Reads dims (a list, or a single int).
  explicit Flip(const LayerConfig& config) : StridedViewLayer(config) {
    const Parameter& dims = config.Param("dims");
    dims_ = dims.type() == Parameter::Type::kInt ? std::vector<int>{dims.AsInt()}
                                                 : config.IntArrayParam("dims");
  }

  // The input's shape; fails on a dimension out of range or listed twice.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    NamedAxes(dims_, input_shapes[0].size());
    return {input_shapes[0]};
  }

 protected:
  std::vector<StridedView> Views(const Shape& input) const override {
    const std::vector<bool> flipped = NamedAxes(dims_, input.size());
    StridedView view;
    view.strides = SignedStrides(input);
    for (size_t d = 0; d < input.size(); ++d) {
      if (!flipped[d] || input[d] == 0) continue;
      view.offset += static_cast<std::ptrdiff_t>(input[d] - 1) * view.strides[d];
      view.strides[d] = -view.strides[d];
    }
    return {view};
  }

 private:
  std::vector<int> dims_;
};

LUMEN_REGISTER_LAYER(Flip, "torch.flip", "Tensor.flip");

}  // namespace lumen
