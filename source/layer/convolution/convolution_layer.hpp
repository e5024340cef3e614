// What nn.Conv1d, nn.Conv2d and lumen.QuantizedConv2d share: the geometry their parameters give
// (channels, groups, window, padding mode), the input shape that geometry accepts and the output
// shape it makes. The subclasses add the weights and the arithmetic.
#ifndef LUMEN_LAYER_CONVOLUTION_CONVOLUTION_LAYER_HPP_
#define LUMEN_LAYER_CONVOLUTION_CONVOLUTION_LAYER_HPP_

#include "kernel/convolution_algorithm.hpp"
#include "layer/layer.hpp"
#include "math/padding.hpp"
#include "math/window.hpp"

namespace lumen {

// A 2-D (or, for nn.Conv1d, 1-D) convolution's geometry, read and checked once.
class ConvolutionLayer : public Layer {
 public:
  // (N, in_channels, H, W) or (in_channels, H, W) -> the same with out_channels and the size the
  // window gives; for nn.Conv1d, (N, in_channels, L) or (in_channels, L).
  Shapes OutputShapes(const Shapes&) const override;

 protected:
  // Reads in_channels, out_channels, groups, padding_mode and the window (1-D for nn.Conv1d);
  // throws lumen::Error naming the layer for inconsistent ones.
  explicit ConvolutionLayer(const LayerConfig& config);
  // A 2-D zero-padded geometry given directly (a layer built as another's channels-first form);
  // `config` names it.
  ConvolutionLayer(const LayerConfig& config, int in_channels, int out_channels, int groups,
                   const Window2d& window);

  // The planes of one sample of `input` as the arithmetic sees them (after padding; a 1-D input
  // is a plane of height 1); throws lumen::Error naming the layer when the input is not
  // (N, in_channels, H, W) or (in_channels, H, W) (1-D: (N, in_channels, L) or (in_channels, L)),
  // the padding mode cannot pad it, or the window does not fit.
  ConvolutionShape SampleShape(const Shape& input) const;

  int in_channels_ = 0;
  int out_channels_ = 0;
  int groups_ = 1;
  // nn.Conv1d: the signal is a plane of height 1, the kernel a 1 x k window.
  bool one_dimensional_ = false;
  // The window the arithmetic applies. Padding other than zeros is done by staging the input:
  // then the window's own padding is 0 and `padding_` holds the amounts.
  Window2d window_;
  PaddingMode padding_mode_ = PaddingMode::kConstant;
  Window2d padding_;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_CONVOLUTION_CONVOLUTION_LAYER_HPP_
