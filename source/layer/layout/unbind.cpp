// torch.unbind: every slice along one dimension, that dimension removed (one output per index).
// pnnx also writes consecutive Tensor.select calls covering a whole dimension as torch.unbind.
#include <vector>

#include "layer/layer_registry.hpp"
#include "layer/view_layer.hpp"
#include "lumen/error.hpp"

namespace lumen {

// Output k is x.select(dim, k). The input's extent along dim must equal the operator's number of
// outputs (PyTorch gives one output per index; a graph fixes how many it reads).
class Unbind : public StridedViewLayer {
 public:
  // Reads dim (default 0).
  explicit Unbind(const LayerConfig& config)
      : StridedViewLayer(config),
        dim_(config.IntParam("dim", 0)),
        output_count_(config.output_count()) {}

  // One shape per index: the input's without dim.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    const Shape& input = input_shapes[0];
    const size_t axis = Axis(dim_, input.size());
    if (input[axis] != output_count_) {
      Fail(Concat("input ", ShapeToString(input), " has ", input[axis], " slice(s) along dim ",
                  dim_, " but the operator has ", output_count_, " output(s)"));
    }
    Shape output = input;
    output.erase(output.begin() + static_cast<std::ptrdiff_t>(axis));
    return std::vector<Shape>(output_count_, output);
  }

 protected:
  std::vector<StridedView> Views(const Shape& input) const override {
    const size_t axis = Axis(dim_, input.size());
    std::vector<StridedView> views;
    for (size_t k = 0; k < output_count_; ++k) views.push_back(SliceView(input, axis, k));
    return views;
  }

 private:
  int dim_;
  size_t output_count_;
};

LUMEN_REGISTER_LAYER(Unbind, "torch.unbind", "Tensor.unbind");

}  // namespace lumen
