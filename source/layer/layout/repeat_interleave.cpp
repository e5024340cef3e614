// torch.repeat_interleave: repeats each element `repeats` times in place along a dimension
// ([a, b] -> [a, a, b, b]), or along the flattened tensor when dim is None.
#include <memory>
#include <vector>

#include "base/checked_math.hpp"
#include "layer/layer_registry.hpp"
#include "layer/view_layer.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// Output index i * repeats + r along dim is input index i: each output dimension of extent
// (n * repeats) is walked as two, (n input elements) x (repeats copies reading with step 0), so
// one strided copy does it all. With dim=None the output is the row-major list of the input's
// elements, each repeated. Repeats given as a tensor (one count per element) make the output's
// extent depend on the tensor's values, which Lumen's shape inference cannot see: refused.
class RepeatInterleave : public StridedCopyLayer {
 public:
  // Reads repeats (an int) and dim (None or an int).
  explicit RepeatInterleave(const LayerConfig& config) : StridedCopyLayer(config) {
    if (!config.HasParam("repeats")) {
      Fail(
          "repeats given as a tensor are not supported: the output's extent is the sum of the "
          "tensor's values, which Lumen's shape inference does not know (give an int)");
    }
    repeats_ = config.IntParam("repeats");
    if (repeats_ < 0) Fail(Concat("repeats must not be negative, got ", repeats_));
    if (config.HasParam("dim") && !config.Param("dim").IsNone()) {
      flatten_ = false;
      dim_ = config.IntParam("dim");
    }
  }

  // dim's extent times repeats, or the element count times repeats when flattened.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    const Shape& input = input_shapes[0];
    if (flatten_) return {Shape{Extent(ShapeElementCount(input), input)}};
    Shape output = input;
    const size_t axis = Axis(dim_, input.size());
    output[axis] = Extent(input[axis], input);
    return {output};
  }

  // Plans the copy.
  StridedCopy Copy(const Shapes& input_shapes, const Shapes& output_shapes) const override {
    const Shape& input = input_shapes[0];
    const std::vector<size_t> input_strides = StorageStrides(input);
    const std::vector<size_t> output_strides = StorageStrides(output_shapes[0]);
    const auto repeats = static_cast<std::ptrdiff_t>(repeats_);
    StridedCopy copy;
    // Flattened: input dimension d lands at its row-major stride (times repeats) in the vector.
    std::ptrdiff_t row_major_stride = repeats;
    const size_t axis = flatten_ ? 0 : Axis(dim_, input.size());
    for (size_t d = input.size(); d-- > 0;) {
      copy.extents.push_back(input[d]);
      copy.source_strides.push_back(static_cast<std::ptrdiff_t>(input_strides[d]));
      if (flatten_) {
        copy.target_strides.push_back(row_major_stride);
        row_major_stride *= static_cast<std::ptrdiff_t>(input[d]);
      } else {
        const auto stride = static_cast<std::ptrdiff_t>(output_strides[d]);
        copy.target_strides.push_back(d == axis ? stride * repeats : stride);
      }
    }
    // The repeats: step 0 in the input, the element's own stride in the output.
    copy.extents.push_back(static_cast<size_t>(repeats_));
    copy.source_strides.push_back(0);
    copy.target_strides.push_back(flatten_ ? 1 : static_cast<std::ptrdiff_t>(output_strides[axis]));
    return copy;
  }

 private:
  // extent * repeats, failing above 2^32 - 1.
  uint32_t Extent(size_t extent, const Shape& input) const {
    const size_t repeated = CheckedMultiply(extent, static_cast<size_t>(repeats_), "repeat");
    if (repeated > UINT32_MAX) {
      Fail(Concat("repeating ", ShapeToString(input), " gives an extent of ", repeated,
                  ", above 2^32 - 1"));
    }
    return static_cast<uint32_t>(repeated);
  }

  int repeats_ = 1;
  bool flatten_ = true;
  int dim_ = 0;
};

LUMEN_REGISTER_LAYER(RepeatInterleave, "torch.repeat_interleave", "Tensor.repeat_interleave");

}  // namespace lumen
