// nn.ConvTranspose2d: the gradient of a convolution, used to upsample (U-Net decoders, FCNs).
#ifndef LUMEN_LAYER_TRANSPOSED_CONVOLUTION_HPP_
#define LUMEN_LAYER_TRANSPOSED_CONVOLUTION_HPP_

#include <vector>

#include "lumen/layer/layer.hpp"
#include "lumen/layer/window.hpp"
#include "lumen/math/packed_gemm.hpp"

namespace lumen {

// Transposed convolution with stride, padding, output_padding, dilation, groups and bias.
//
// Every input pixel scatters a weighted kernel into the output. As matrices, per group:
// columns (H_in*W_in x K) = X (H_in*W_in x C_in/g) * W (C_in/g x K) with K = C_out/g * kH * kW,
// one GEMM; then col2im adds each column's values into the output pixels it lands on.
class TransposedConvolution : public Layer {
 public:
  // Reads the nn.ConvTranspose2d parameters and weights.
  explicit TransposedConvolution(const RuntimeOperator& op);
  // Checks the input channels and the output size; sizes the columns workspace.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Computes each sample.
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;

 private:
  // Adds the columns workspace of one group into the output channels of that group.
  void Col2Im(int group, Tensor* output) const;

  int in_channels_ = 0;
  int out_channels_ = 0;
  int groups_ = 1;
  Window2d window_;
  int output_padding_h_ = 0, output_padding_w_ = 0;
  // PyTorch's (in, out/groups, kH, kW) weights: per group the (in/g x K) right-hand side, packed.
  std::vector<PackedMatrix> packed_weights_;
  std::vector<float> bias_;  // empty without bias
  int input_h_ = 0, input_w_ = 0, output_h_ = 0, output_w_ = 0;
  std::vector<float> columns_;  // (input_h * input_w) x K
};

}  // namespace lumen

#endif  // LUMEN_LAYER_TRANSPOSED_CONVOLUTION_HPP_
