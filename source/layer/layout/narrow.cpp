// torch.narrow: x.narrow(dim, start, length), the `length` elements from `start` along dim.
#include <vector>

#include "layer/layer_registry.hpp"
#include "layer/view_layer.hpp"
#include "lumen/error.hpp"

namespace lumen {

// Unlike a slice, narrow does not clamp: a negative start counts from the end, and a range that
// does not fit in the extent is an error, as in PyTorch.
class Narrow : public AxisViewLayer {
 public:
  // Reads dim, start and length.
  explicit Narrow(const LayerConfig& config)
      : AxisViewLayer(config, config.IntParam("dim")),
        start_(config.IntParam("start")),
        length_(config.IntParam("length")) {
    if (length_ < 0) Fail(Concat("length must be non-negative, got ", length_));
  }

 protected:
  // The input's shape with `length` along dim, after checking the range.
  Shapes OutputShapesAlong(const Shape& input, size_t axis) const override {
    Start(input, axis);
    Shape output = input;
    output[axis] = static_cast<uint32_t>(length_);
    return {output};
  }

  // The input's own strides, from the first element of the narrowed part.
  std::vector<StridedView> ViewsAlong(const Shape& input, size_t axis) const override {
    StridedView view;
    view.strides = SignedStrides(input);
    view.offset = static_cast<std::ptrdiff_t>(Start(input, axis)) * view.strides[axis];
    return {view};
  }

 private:
  // The start in [0, extent], failing when start or start + length fall outside the extent.
  size_t Start(const Shape& input, size_t axis) const {
    const int64_t extent = input[axis];
    if (start_ < -extent || start_ > extent) {
      Fail(Concat("start ", start_, " is out of range for dim ", dim(), " of extent ", extent,
                  " (input ", ShapeToString(input), ")"));
    }
    const int64_t start = start_ < 0 ? start_ + extent : start_;
    if (start + length_ > extent) {
      Fail(Concat("start (", start_, ") + length (", length_, ") exceeds the extent ", extent,
                  " of dim ", dim(), " (input ", ShapeToString(input), ")"));
    }
    return static_cast<size_t>(start);
  }

  int start_;
  int length_;
};

LUMEN_REGISTER_LAYER(Narrow, "torch.narrow", "Tensor.narrow");

}  // namespace lumen
