// nn.ChannelShuffle: interleave the channels of `groups` groups (ShuffleNet).
#include <algorithm>
#include <memory>
#include <vector>

#include "base/thread_pool.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "layer/slicewise_layer.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// PyTorch's view (N, g, C/g, *) -> transpose -> view (N, C, *): output channel i*g + j is input
// channel j*(C/g) + i, for an input of rank 3 or more with channels at dim 1.
class ChannelShuffle : public Layer {
 public:
  // Reads groups.
  explicit ChannelShuffle(const LayerConfig& config);
  // The input's shape, after checking that C is divisible by groups.
  Shapes OutputShapes(const Shapes&) const override;
  // Locates the channel dimension in memory for these shapes.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Copies every channel to its new place.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;

 private:
  int groups_ = 1;
};

namespace {

// Below this many elements the copy runs on one thread.
constexpr size_t kParallelElements = 1 << 15;

}  // namespace

ChannelShuffle::ChannelShuffle(const LayerConfig& config)
    : Layer(config), groups_(config.IntParam("groups")) {
  if (groups_ < 1) Fail("groups must be positive");
}

Shapes ChannelShuffle::OutputShapes(const Shapes& input_shapes) const {
  CheckInputCount(input_shapes, 1);
  const Shape& input = input_shapes[0];
  if (input.size() < 3 || input[1] % static_cast<uint32_t>(groups_) != 0) {
    Fail(Concat("expected an (N,C,...) input of rank 3 or more with C divisible by groups ",
                groups_, ", got ", ShapeToString(input)));
  }
  return {input};
}

StatePointer ChannelShuffle::Prepare(const Shapes& input_shapes, const Shapes& /*output_shapes*/,
                                     const PrepareContext& /*context*/) const {
  // The tensor seen as (outer, channels, inner) blocks around dim 1. For rank 4 and up a channel
  // is one contiguous block per sample; for rank 3, (N, C, L), the channel is the fcube row, so
  // its elements are single floats C apart.
  auto state = std::make_unique<AxisSplitState>();
  if (ShapeElementCount(input_shapes[0]) > 0) state->split = SplitAroundAxis(input_shapes[0], 1);
  return state;
}

void ChannelShuffle::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                             const ForwardContext& context) const {
  const AxisSplit& split = context.state_as<AxisSplitState>().split;
  const size_t channels = split.extent;
  const size_t groups = static_cast<size_t>(groups_);
  const size_t per_group = channels / groups;
  const size_t inner = split.inner;
  const float* source = inputs[0]->data();
  float* target = outputs[0]->data();
  ParallelFor(
      context.compute.pool, static_cast<std::ptrdiff_t>(split.outer * channels),
      [&](std::ptrdiff_t task) {
        const size_t block = static_cast<size_t>(task) / channels;
        const size_t channel = static_cast<size_t>(task) % channels;
        const size_t from = (channel % groups) * per_group + channel / groups;
        const float* first = source + (block * channels + from) * inner;
        std::copy(first, first + inner, target + (block * channels + channel) * inner);
      },
      Schedule::kStatic, inputs[0]->size() >= kParallelElements);
}

LUMEN_REGISTER_LAYER(ChannelShuffle, "nn.ChannelShuffle", "F.channel_shuffle");

}  // namespace lumen
