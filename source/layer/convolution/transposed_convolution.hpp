// nn.ConvTranspose2d: the gradient of a convolution, used to upsample (U-Net decoders, FCNs).
#ifndef LUMEN_LAYER_CONVOLUTION_TRANSPOSED_CONVOLUTION_HPP_
#define LUMEN_LAYER_CONVOLUTION_TRANSPOSED_CONVOLUTION_HPP_

#include <memory>
#include <vector>

#include "layer/layer.hpp"
#include "math/packed_gemm.hpp"
#include "math/window.hpp"

namespace lumen {

// Transposed convolution with stride, padding, output_padding, dilation, groups and bias.
//
// Every input pixel scatters a weighted kernel into the output. As matrices, per group:
// columns (H_in*W_in x K) = X (H_in*W_in x C_in/g) * W (C_in/g x K) with K = C_out/g * kH * kW,
// one GEMM; then col2im adds each column's values into the output pixels it lands on. The input is
// taken in blocks of whole input columns (about 1 MB of `columns` each), so the scratch stays
// cache-sized whatever the map size.
class TransposedConvolution : public Layer {
 public:
  // Reads the nn.ConvTranspose2d parameters and packs the weights.
  explicit TransposedConvolution(const LayerConfig& config);
  // (N, in_channels, H, W) or (in_channels, H, W) -> the same with out_channels and
  // (H - 1) * stride - padding_before - padding_after + dilation * (kernel - 1) + output_padding
  // + 1.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Sizes the blocks for the input size and reserves their scratch.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override;
  // Computes each sample.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  struct Sizes;  // the planes of one sample and the block size (the layer's state)

  // The sizes for `input`; throws lumen::Error naming the layer when the input is not
  // (N, in_channels, H, W) or (in_channels, H, W) or the output would be empty.
  Sizes SampleSizes(const Shape& input) const;
  // Adds `columns`, the GEMM result for the input columns [first_column, +block_columns) of one
  // group, into that group's output channels.
  void Col2Im(const Sizes& sizes, int group, int first_column, int block_columns,
              const float* columns, float* output, const ComputeContext& context) const;

  int in_channels_ = 0;
  int out_channels_ = 0;
  int groups_ = 1;
  Window2d window_;
  int output_padding_h_ = 0, output_padding_w_ = 0;
  int kernel_size_ = 0;  // K: out_channels / groups * kH * kW, the columns per input pixel
  // PyTorch's (in, out/groups, kH, kW) weights: per group the (in/g x K) right-hand side, packed.
  std::vector<PackedMatrix> packed_weights_;
  std::vector<float> bias_;  // empty without bias
};

}  // namespace lumen

#endif  // LUMEN_LAYER_CONVOLUTION_TRANSPOSED_CONVOLUTION_HPP_
