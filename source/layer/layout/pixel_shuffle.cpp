// nn.PixelShuffle / F.pixel_shuffle and nn.PixelUnshuffle / F.pixel_unshuffle: move values
// between channels and space, (*, C*r*r, H, W) <-> (*, C, H*r, W*r).
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "layer/layer_registry.hpp"
#include "layer/view_layer.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// Shuffle: output (c, h*r + i, w*r + j) is input channel c*r*r + i*r + j at (h, w); unshuffle is
// the inverse. Any number of leading dimensions (batch or more) is allowed, as in PyTorch. Both
// are one strided copy over the index space (leading, c, h, i, w, j).
class PixelShuffle : public StridedCopyLayer {
 public:
  // Reads upscale_factor (shuffle) or downscale_factor (unshuffle).
  explicit PixelShuffle(const LayerConfig& config)
      : StridedCopyLayer(config),
        unshuffle_(config.type() == "nn.PixelUnshuffle" || config.type() == "F.pixel_unshuffle"),
        factor_(config.IntParam(unshuffle_ ? "downscale_factor" : "upscale_factor")) {
    if (factor_ < 1) Fail(Concat("the factor must be positive, got ", factor_));
  }

  // Channels divided (multiplied) by r*r, plane multiplied (divided) by r.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    const Shape& input = input_shapes[0];
    const size_t rank = input.size();
    if (rank < 3) {
      Fail(Concat("expected an input of rank 3 or more (*,C,H,W), got ", ShapeToString(input)));
    }
    const uint64_t r = static_cast<uint64_t>(factor_);
    Shape output = input;
    if (unshuffle_) {
      if (input[rank - 2] % r != 0 || input[rank - 1] % r != 0) {
        Fail(Concat("height and width of ", ShapeToString(input),
                    " must be multiples of the downscale factor ", factor_));
      }
      const uint64_t channels = uint64_t{input[rank - 3]} * r * r;
      if (channels > std::numeric_limits<uint32_t>::max()) Fail("too many output channels");
      output[rank - 3] = static_cast<uint32_t>(channels);
      output[rank - 2] = static_cast<uint32_t>(input[rank - 2] / r);
      output[rank - 1] = static_cast<uint32_t>(input[rank - 1] / r);
    } else {
      if (input[rank - 3] % (r * r) != 0) {
        Fail(Concat("the channels of ", ShapeToString(input),
                    " must be a multiple of the upscale factor squared, ", r * r));
      }
      const uint64_t height = uint64_t{input[rank - 2]} * r;
      const uint64_t width = uint64_t{input[rank - 1]} * r;
      if (height > std::numeric_limits<uint32_t>::max() ||
          width > std::numeric_limits<uint32_t>::max()) {
        Fail("the output plane is too large");
      }
      output[rank - 3] = static_cast<uint32_t>(input[rank - 3] / (r * r));
      output[rank - 2] = static_cast<uint32_t>(height);
      output[rank - 1] = static_cast<uint32_t>(width);
    }
    return {output};
  }

  // Plans the copy over (leading, c, h, i, w, j).
  StridedCopy Copy(const Shapes& input_shapes, const Shapes& output_shapes) const override {
    // The shuffled side is (*, C, H*r, W*r), the packed side (*, C*r*r, H, W).
    const Shape& spread = unshuffle_ ? input_shapes[0] : output_shapes[0];
    const Shape& packed = unshuffle_ ? output_shapes[0] : input_shapes[0];
    const std::vector<size_t> spread_strides = StorageStrides(spread);
    const std::vector<size_t> packed_strides = StorageStrides(packed);
    const size_t rank = spread.size();
    const auto r = static_cast<size_t>(factor_);
    std::vector<size_t> extents;
    std::vector<std::ptrdiff_t> spread_steps;
    std::vector<std::ptrdiff_t> packed_steps;
    const auto add = [&](size_t extent, size_t spread_step, size_t packed_step) {
      extents.push_back(extent);
      spread_steps.push_back(static_cast<std::ptrdiff_t>(spread_step));
      packed_steps.push_back(static_cast<std::ptrdiff_t>(packed_step));
    };
    for (size_t d = 0; d + 3 < rank; ++d) add(spread[d], spread_strides[d], packed_strides[d]);
    const size_t channel = packed_strides[rank - 3];  // memory step of one packed channel
    add(spread[rank - 3], spread_strides[rank - 3], channel * r * r);               // c
    add(packed[rank - 2], spread_strides[rank - 2] * r, packed_strides[rank - 2]);  // h
    add(factor_, spread_strides[rank - 2], channel * r);                            // i
    add(packed[rank - 1], spread_strides[rank - 1] * r, packed_strides[rank - 1]);  // w
    add(factor_, spread_strides[rank - 1], channel);                                // j
    StridedCopy copy;
    copy.extents = extents;
    copy.source_strides = unshuffle_ ? spread_steps : packed_steps;
    copy.target_strides = unshuffle_ ? packed_steps : spread_steps;
    return copy;
  }

 private:
  bool unshuffle_;
  int factor_;
};

LUMEN_REGISTER_LAYER(PixelShuffle, "nn.PixelShuffle", "F.pixel_shuffle", "nn.PixelUnshuffle",
                     "F.pixel_unshuffle");

}  // namespace lumen
