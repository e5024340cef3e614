// torch.unbind: every slice along one dimension, that dimension removed (one output per index).
// pnnx also writes consecutive Tensor.select calls covering a whole dimension as torch.unbind.
#include <vector>

#include "layer/layer_registry.hpp"
#include "layer/view_layer.hpp"
#include "lumen/error.hpp"

namespace lumen {

// Output k is x.select(dim, k). The input's extent along dim must equal the operator's number of
// outputs (PyTorch gives one output per index; a graph fixes how many it reads).
class Unbind : public AxisViewLayer {
 public:
  // Reads dim (default 0).
  explicit Unbind(const LayerConfig& config)
      : AxisViewLayer(config, config.IntParam("dim", 0)), output_count_(config.output_count()) {}

 protected:
  // One shape per index: the input's without dim.
  Shapes OutputShapesAlong(const Shape& input, size_t axis) const override {
    if (input[axis] != output_count_) {
      Fail(Concat("input ", ShapeToString(input), " has ", input[axis], " slice(s) along dim ",
                  dim(), " but the operator has ", output_count_, " output(s)"));
    }
    return Shapes(output_count_, WithoutAxis(input, axis));
  }

  // The slice at each index.
  std::vector<StridedView> ViewsAlong(const Shape& input, size_t axis) const override {
    std::vector<StridedView> views;
    for (size_t k = 0; k < output_count_; ++k) views.push_back(SliceView(input, axis, k));
    return views;
  }

 private:
  size_t output_count_;
};

LUMEN_REGISTER_LAYER(Unbind, "torch.unbind", "Tensor.unbind");

}  // namespace lumen
