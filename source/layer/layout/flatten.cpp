// torch.flatten: merge dimensions start_dim..end_dim into one, keeping the row-major order.
#include <limits>
#include <vector>

#include "base/checked_math.hpp"
#include "layer/layer_registry.hpp"
#include "layer/view_layer.hpp"
#include "lumen/error.hpp"

namespace lumen {

// Flattens a range of dimensions of the whole tensor (the batch is dimension 0 like any other;
// negative indices count from the end, as in PyTorch).
class Flatten : public ViewLayer {
 public:
  // start_dim defaults to 0 and end_dim to -1: everything.
  explicit Flatten(const LayerConfig& config)
      : ViewLayer(config), dims_(config.DimRangeParam("start_dim", 0, "end_dim", -1)) {}

 protected:
  // Resolves the dimensions against the input's rank and merges their extents.
  Shape ViewShape(const Shape& input) const override;

 private:
  DimRange dims_;  // start_dim and end_dim
};

Shape Flatten::ViewShape(const Shape& input) const {
  // PyTorch flattens a 0-d tensor to one element (start and end must then be 0 or -1).
  if (input.empty()) {
    Axis(dims_.start, 1);
    Axis(dims_.end, 1);
    return Shape{1};
  }
  const size_t start = Axis(dims_.start, input.size());
  const size_t end = Axis(dims_.end, input.size());
  if (start > end) {
    Fail(Concat("start_dim ", dims_.start, " comes after end_dim ", dims_.end, " for input ",
                ShapeToString(input)));
  }
  size_t merged = 1;
  for (size_t axis = start; axis <= end; ++axis) {
    merged = CheckedMultiply(merged, input[axis], "flattened extent");
  }
  if (merged > std::numeric_limits<uint32_t>::max()) {
    Fail(Concat("flattening ", ShapeToString(input), " from dim ", dims_.start, " to ", dims_.end,
                " gives an extent of ", merged, ", above 2^32 - 1"));
  }
  Shape output(input.begin(), input.begin() + static_cast<std::ptrdiff_t>(start));
  output.push_back(static_cast<uint32_t>(merged));
  output.insert(output.end(), input.begin() + static_cast<std::ptrdiff_t>(end) + 1, input.end());
  return output;
}

LUMEN_REGISTER_LAYER(Flatten, "torch.flatten");

}  // namespace lumen
