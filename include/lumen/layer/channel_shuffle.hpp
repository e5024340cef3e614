// nn.ChannelShuffle: interleave the channels of `groups` groups (ShuffleNet).
#ifndef LUMEN_LAYER_CHANNEL_SHUFFLE_HPP_
#define LUMEN_LAYER_CHANNEL_SHUFFLE_HPP_

#include "lumen/layer/layer.hpp"

namespace lumen {

// PyTorch's view (g, C/g, H, W) -> transpose -> view (C, H, W): output channel i*g + j is input
// channel j*(C/g) + i. Channels are contiguous, so it is one copy per channel.
class ChannelShuffle : public Layer {
 public:
  // Reads groups.
  explicit ChannelShuffle(const RuntimeOperator& op);
  // Checks an (N, C, ...) input with C divisible by groups, and output shape == input shape.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Copies every channel to its new place.
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;

 private:
  int groups_ = 1;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_CHANNEL_SHUFFLE_HPP_
