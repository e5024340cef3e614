// torch.unsqueeze: insert a dimension of extent 1.
#include "layer/layer_registry.hpp"
#include "layer/view_layer.hpp"

namespace lumen {

// Unsqueeze at `dim` of the output (negative counts from the end of the output, as in PyTorch).
class Unsqueeze : public ViewLayer {
 public:
  explicit Unsqueeze(const LayerConfig& config) : ViewLayer(config), dim_(config.IntParam("dim")) {}

 protected:
  // The new dimension is a dimension of the output, which has one more than the input.
  Shape ViewShape(const Shape& input) const override {
    Shape output = input;
    output.insert(output.begin() + static_cast<std::ptrdiff_t>(Axis(dim_, input.size() + 1)), 1);
    return output;
  }

 private:
  int dim_ = 0;
};

LUMEN_REGISTER_LAYER(Unsqueeze, "torch.unsqueeze", "Tensor.unsqueeze");

}  // namespace lumen
