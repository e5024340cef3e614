// Tensor.repeat / torch.tile: tiles a tensor, repeats[d] copies along each dimension d.
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "base/checked_math.hpp"
#include "layer/layer_registry.hpp"
#include "layer/view_layer.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// `repeats` may be longer than the input's rank: the input is then seen with leading extents of
// 1, as in PyTorch. Each output dimension of extent r * s is walked as two, (r copies) x (s input
// elements), the first reading the input with step 0: one strided copy does the whole tiling.
// torch.tile is the same, except that repeats shorter than the rank are padded with leading 1s
// where Tensor.repeat refuses them.
class Repeat : public StridedCopyLayer {
 public:
  // Reads sizes (pnnx's name for Tensor.repeat's repeats) or dims (torch.tile's).
  explicit Repeat(const LayerConfig& config)
      : StridedCopyLayer(config), tile_(config.HasParam("dims")) {
    const char* key = tile_ ? "dims" : "sizes";
    const Parameter& sizes = config.Param(key);
    repeats_ = sizes.type() == Parameter::Type::kInt ? std::vector<int>{sizes.AsInt()}
                                                     : config.IntArrayParam(key);
    for (int repeat : repeats_) {
      if (repeat < 0) Fail(Concat("repeats must not be negative, got ", sizes.text()));
    }
  }

  // Each extent multiplied by its repeat count.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    const Shape input = Padded(input_shapes[0]);
    const std::vector<int> repeats = Repeats(input.size());
    Shape output(input.size());
    for (size_t d = 0; d < input.size(); ++d) {
      const size_t extent = CheckedMultiply(input[d], static_cast<size_t>(repeats[d]), "repeat");
      if (extent > std::numeric_limits<uint32_t>::max()) {
        Fail(Concat("repeating ", ShapeToString(input_shapes[0]), " gives an extent of ", extent,
                    ", above 2^32 - 1"));
      }
      output[d] = static_cast<uint32_t>(extent);
    }
    return {output};
  }

  // Plans the tiling copy.
  StridedCopy Copy(const Shapes& input_shapes, const Shapes& output_shapes) const override {
    const Shape input = Padded(input_shapes[0]);
    const std::vector<int> repeats = Repeats(input.size());
    const std::vector<size_t> input_strides = StorageStrides(input);
    const std::vector<size_t> output_strides = StorageStrides(output_shapes[0]);
    StridedCopy copy;
    for (size_t d = 0; d < input.size(); ++d) {
      const auto output_stride = static_cast<std::ptrdiff_t>(output_strides[d]);
      copy.extents.push_back(static_cast<size_t>(repeats[d]));  // which copy
      copy.source_strides.push_back(0);
      copy.target_strides.push_back(output_stride * input[d]);
      copy.extents.push_back(input[d]);  // which element of the copy
      copy.source_strides.push_back(static_cast<std::ptrdiff_t>(input_strides[d]));
      copy.target_strides.push_back(output_stride);
    }
    return copy;
  }

 private:
  // The input's shape with leading 1s up to the length of repeats; throws lumen::Error when
  // Tensor.repeat's repeats are shorter than the rank, which PyTorch refuses.
  Shape Padded(const Shape& input) const {
    if (tile_) {
      Shape padded(repeats_.size() > input.size() ? repeats_.size() - input.size() : 0, 1);
      padded.insert(padded.end(), input.begin(), input.end());
      return padded;
    }
    if (repeats_.size() < input.size()) {
      Fail(Concat("the number of repeats (", repeats_.size(),
                  ") must be at least the input's rank ", input.size(), " (input ",
                  ShapeToString(input), ")"));
    }
    Shape padded(repeats_.size() - input.size(), 1);
    padded.insert(padded.end(), input.begin(), input.end());
    return padded;
  }

  // The repeats for a padded input of rank `rank`, with leading 1s for torch.tile.
  std::vector<int> Repeats(size_t rank) const {
    std::vector<int> repeats(rank - repeats_.size(), 1);
    repeats.insert(repeats.end(), repeats_.begin(), repeats_.end());
    return repeats;
  }

  bool tile_;
  std::vector<int> repeats_;
};

LUMEN_REGISTER_LAYER(Repeat, "Tensor.repeat", "torch.tile", "Tensor.tile");

}  // namespace lumen
