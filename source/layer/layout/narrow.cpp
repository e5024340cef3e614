// torch.narrow: x.narrow(dim, start, length), the `length` elements from `start` along dim.
#include <vector>

#include "layer/layer_registry.hpp"
#include "layer/view_layer.hpp"
#include "lumen/error.hpp"

namespace lumen {

// Unlike a slice, narrow does not clamp: a negative start counts from the end, and a range that
// does not fit in the extent is an error, as in PyTorch.
class Narrow : public StridedViewLayer {
 public:
  // Reads dim, start and length.
  explicit Narrow(const LayerConfig& config)
      : StridedViewLayer(config),
        dim_(config.IntParam("dim")),
        start_(config.IntParam("start")),
        length_(config.IntParam("length")) {
    if (length_ < 0) Fail(Concat("length must be non-negative, got ", length_));
  }

  // The input's shape with `length` along dim.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    const Shape& input = input_shapes[0];
    const size_t axis = Axis(dim_, input.size());
    Start(input, axis);
    Shape output = input;
    output[axis] = static_cast<uint32_t>(length_);
    return {output};
  }

 protected:
  // The input's own strides, from the first element of the narrowed part.
  std::vector<StridedView> Views(const Shape& input) const override {
    const size_t axis = Axis(dim_, input.size());
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
      Fail(Concat("start ", start_, " is out of range for dim ", dim_, " of extent ", extent,
                  " (input ", ShapeToString(input), ")"));
    }
    const int64_t start = start_ < 0 ? start_ + extent : start_;
    if (start + length_ > extent) {
      Fail(Concat("start (", start_, ") + length (", length_, ") exceeds the extent ", extent,
                  " of dim ", dim_, " (input ", ShapeToString(input), ")"));
    }
    return static_cast<size_t>(start);
  }

  int dim_;
  int start_;
  int length_;
};

LUMEN_REGISTER_LAYER(Narrow, "torch.narrow", "Tensor.narrow");

}  // namespace lumen
