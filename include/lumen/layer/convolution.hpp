// nn.Conv2d: 2-D convolution by im2col and one GEMM per group.
#ifndef LUMEN_LAYER_CONVOLUTION_HPP_
#define LUMEN_LAYER_CONVOLUTION_HPP_

#include <vector>

#include "lumen/layer/layer.hpp"
#include "lumen/layer/window.hpp"

namespace lumen {

// Convolution with stride, zero padding, dilation, groups (depthwise included) and optional bias.
//
// Layout trick: an output sample is a cube whose channels are contiguous column-major H x W
// matrices, so the whole group of output channels is one column-major (H*W) x C_out matrix. With
// the im2col matrix A ((H_out*W_out) x K, one column per (input channel, ky, kx)) and PyTorch's
// weight buffer read as a column-major K x C_out matrix B (no transpose or copy needed), one GEMM
// A * B writes every output channel of the group in place.
class Convolution : public Layer {
 public:
  // Reads the nn.Conv2d parameters and weights; throws lumen::Error on inconsistent ones.
  explicit Convolution(const RuntimeOperator& op);
  // Checks the input is (N, in_channels, H, W) and the output has the size the window gives;
  // sizes the im2col workspace.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Convolves each sample.
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;

 private:
  // Fills columns_ with the im2col matrix of one group of `input`'s channels.
  void Im2Col(const Tensor& input, int group);
  // Convolves one sample.
  void ForwardSample(const Tensor& input, Tensor* output);

  int in_channels_ = 0;
  int out_channels_ = 0;
  int groups_ = 1;
  Window2d window_;
  // PyTorch's (out, in/groups, kH, kW) weights, unchanged: per group a column-major K x out/groups.
  std::vector<float> weights_;
  std::vector<float> bias_;  // empty without bias
  // Set by Prepare.
  int input_h_ = 0, input_w_ = 0, output_h_ = 0, output_w_ = 0;
  bool is_pointwise_ = false;   // 1x1, stride 1, no padding: the input already is the im2col matrix
  std::vector<float> columns_;  // im2col workspace, (output_h * output_w) x K
};

}  // namespace lumen

#endif  // LUMEN_LAYER_CONVOLUTION_HPP_
