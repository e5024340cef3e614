// nn.ChannelShuffle: interleave the channels of `groups` groups (ShuffleNet).
#include <vector>

#include "layer/layer_registry.hpp"
#include "layer/view_layer.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// PyTorch's view (N, g, C/g, *) -> transpose -> view (N, C, *): output channel i*g + j is input
// channel j*(C/g) + i, for an input of rank 3 or more with channels at dim 1. One strided copy
// over the index space (N, i, j, *).
class ChannelShuffle : public StridedCopyLayer {
 public:
  // Reads groups.
  explicit ChannelShuffle(const LayerConfig& config)
      : StridedCopyLayer(config), groups_(config.IntParam("groups")) {
    if (groups_ < 1) Fail("groups must be positive");
  }

  // The input's shape, after checking that C is divisible by groups.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    const Shape& input = input_shapes[0];
    if (input.size() < 3 || input[1] % static_cast<uint32_t>(groups_) != 0) {
      Fail(Concat("expected an (N,C,...) input of rank 3 or more with C divisible by groups ",
                  groups_, ", got ", ShapeToString(input)));
    }
    return {input};
  }

  // Plans the copy over (N, i, j, *): input and output share a shape and so their strides.
  StridedCopy Copy(const Shapes& input_shapes, const Shapes& /*output_shapes*/) const override {
    const Shape& shape = input_shapes[0];
    const std::vector<size_t> strides = StorageStrides(shape);
    const auto groups = static_cast<size_t>(groups_);
    const size_t per_group = shape[1] / groups;
    const auto step = [](size_t stride) { return static_cast<std::ptrdiff_t>(stride); };
    StridedCopy copy;
    copy.extents = {shape[0], per_group, groups};
    copy.source_strides = {step(strides[0]), step(strides[1]), step(strides[1] * per_group)};
    copy.target_strides = {step(strides[0]), step(strides[1] * groups), step(strides[1])};
    for (size_t d = 2; d < shape.size(); ++d) {
      copy.extents.push_back(shape[d]);
      copy.source_strides.push_back(step(strides[d]));
      copy.target_strides.push_back(step(strides[d]));
    }
    return copy;
  }

 private:
  int groups_ = 1;
};

LUMEN_REGISTER_LAYER(ChannelShuffle, "nn.ChannelShuffle", "F.channel_shuffle");

}  // namespace lumen
