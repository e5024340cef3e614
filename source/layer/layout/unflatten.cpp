// torch.unflatten: one dimension split into several whose extents multiply to it (one of them
// may be -1, inferred), the other dimensions kept. ONNX's Gather with indices of rank above 1 is
// torch.index_select by the flattened indices, then this.
#include "base/checked_math.hpp"
#include "layer/layer_registry.hpp"
#include "layer/view_layer.hpp"
#include "lumen/error.hpp"

namespace lumen {

// Splits `dim` into `sizes`.
class Unflatten : public ViewLayer {
 public:
  // Reads dim and sizes (at most one of them -1).
  explicit Unflatten(const LayerConfig& config)
      : ViewLayer(config), dim_(config.IntParam("dim")), sizes_(config.IntArrayParam("sizes")) {
    int inferred = 0;
    for (int size : sizes_) {
      if (size < -1) Fail(Concat("sizes must be at least -1, got ", size));
      inferred += size == -1;
    }
    if (sizes_.empty() || inferred > 1) Fail("sizes must be non-empty with at most one -1");
  }

 protected:
  // The input's shape with dim's extent replaced by sizes, checked to hold as many elements.
  Shape ViewShape(const Shape& input) const override {
    const size_t axis = Axis(dim_, input.size());
    size_t known = 1;
    bool inferred = false;
    std::string sizes_text;
    for (int size : sizes_) {
      sizes_text += Concat(sizes_text.empty() ? "" : ",", size);
      if (size == -1) {
        inferred = true;
      } else {
        known = CheckedMultiply(known, static_cast<size_t>(size), "torch.unflatten's sizes");
      }
    }
    const size_t extent = input[axis];
    if (inferred ? known == 0 || extent % known != 0 : known != extent) {
      Fail(Concat("dim ", dim_, " of extent ", extent, " of ", ShapeToString(input),
                  " cannot be split into sizes (", sizes_text, ")"));
    }
    Shape output(input.begin(), input.begin() + static_cast<std::ptrdiff_t>(axis));
    for (int size : sizes_) {
      output.push_back(static_cast<uint32_t>(size == -1 ? extent / known : size));
    }
    output.insert(output.end(), input.begin() + static_cast<std::ptrdiff_t>(axis) + 1, input.end());
    return output;
  }

 private:
  int dim_ = 0;
  std::vector<int> sizes_;
};

LUMEN_REGISTER_LAYER(Unflatten, "torch.unflatten", "Tensor.unflatten");

}  // namespace lumen
