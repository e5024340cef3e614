// nn.ChannelShuffle: interleave the channels of `groups` groups (ShuffleNet).
#ifndef LUMEN_LAYER_LAYOUT_CHANNEL_SHUFFLE_HPP_
#define LUMEN_LAYER_LAYOUT_CHANNEL_SHUFFLE_HPP_

#include <memory>
#include <vector>

#include "layer/layer.hpp"

namespace lumen {

// PyTorch's view (N, g, C/g, *) -> transpose -> view (N, C, *): output channel i*g + j is input
// channel j*(C/g) + i, for an input of rank 3 or more with channels at dim 1.
class ChannelShuffle : public Layer {
 public:
  // Reads groups.
  explicit ChannelShuffle(const LayerConfig& config);
  // The input's shape, after checking that C is divisible by groups.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Locates the channel dimension in memory for these shapes.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override;
  // Copies every channel to its new place.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  int groups_ = 1;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_LAYOUT_CHANNEL_SHUFFLE_HPP_
