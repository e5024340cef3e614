// im2col + GEMM: the general algorithm, for any stride, padding, dilation and groups.
//
// Layout trick: an output sample is a cube whose channels are contiguous column-major H x W
// matrices, so a group's output channels form one column-major (H*W) x C_out matrix. With the
// im2col matrix A ((H_out*W_out) x K, one column per (input channel, ky, kx)) and PyTorch's weight
// buffer read as a column-major K x C_out matrix B (no transpose or copy needed), one GEMM A * B
// writes every output channel of the group in place.
#include <algorithm>

#include "lumen/kernel/convolution_algorithm.hpp"
#include "lumen/math/packed_gemm.hpp"

namespace lumen {
namespace {

class Im2colConvolution : public ConvolutionAlgorithm {
 public:
  explicit Im2colConvolution(const ConvolutionSpec& spec)
      : ConvolutionAlgorithm(spec),
        kernel_size_(spec.in_channels / spec.groups * spec.window.kernel_h * spec.window.kernel_w),
        columns_(static_cast<size_t>(kernel_size_) * spec.output_h * spec.output_w) {
    // Each group's weights, a column-major K x C_out/groups matrix, packed once.
    const int group_out = spec.out_channels / spec.groups;
    for (int group = 0; group < spec.groups; ++group) {
      weights_.emplace_back(
          spec.weights.data() + static_cast<size_t>(group) * group_out * kernel_size_, kernel_size_,
          group_out, kernel_size_);
    }
    spec_.weights.clear();  // the packed copy is all Run needs
  }
  const char* name() const override { return "im2col"; }

  void Run(const Tensor& input, Tensor* output) override {
    const int group_out = spec_.out_channels / spec_.groups;
    const int output_area = spec_.output_h * spec_.output_w;
    for (int group = 0; group < spec_.groups; ++group) {
      Im2Col(input, group);
      // (output_area x kernel_size) * (kernel_size x group_out) -> output_area x group_out
      PackedGemm(output_area, columns_.data(), output_area, weights_[group],
                 output->channel_data(group * group_out), output_area);
    }
#pragma omp parallel for schedule(static)
    for (int channel = 0; channel < spec_.out_channels; ++channel) {
      FinishChannel(channel, output->channel_data(channel), output_area);
    }
  }

 private:
  // Fills columns_ with the im2col matrix of one group of the input's channels.
  void Im2Col(const Tensor& input, int group) {
    const Window2d& w = spec_.window;
    const int kernel_area = w.kernel_h * w.kernel_w;
    const int output_h = spec_.output_h;
    const int output_area = output_h * spec_.output_w;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < kernel_size_; ++k) {
      // Column k of the im2col matrix holds input channel `channel` shifted by (ky, kx).
      const int channel = group * (spec_.in_channels / spec_.groups) + k / kernel_area;
      const int ky = (k % kernel_area) / w.kernel_w;
      const int kx = k % w.kernel_w;
      const int row_offset = ky * w.dilation_h - w.pad_top;
      const int col_offset = kx * w.dilation_w - w.pad_left;
      // Output rows whose input row (oy * stride + row_offset) lies inside the image.
      const int first_row = std::clamp((-row_offset + w.stride_h - 1) / w.stride_h, 0, output_h);
      const int end_row = std::clamp((spec_.input_h - row_offset + w.stride_h - 1) / w.stride_h,
                                     first_row, output_h);
      const float* source = input.channel_data(channel);
      float* column = columns_.data() + static_cast<size_t>(k) * output_area;
      for (int ox = 0; ox < spec_.output_w; ++ox) {
        float* target = column + ox * output_h;  // each output column is output_h floats
        const int ix = ox * w.stride_w + col_offset;
        if (ix < 0 || ix >= spec_.input_w) {
          std::fill(target, target + output_h, 0.0f);
          continue;
        }
        const float* input_column = source + ix * spec_.input_h;  // contiguous rows
        std::fill(target, target + first_row, 0.0f);
        for (int oy = first_row; oy < end_row; ++oy) {
          target[oy] = input_column[oy * w.stride_h + row_offset];
        }
        std::fill(target + end_row, target + output_h, 0.0f);
      }
    }
  }

  int kernel_size_;                    // K: (in_channels / groups) * kH * kW
  std::vector<float> columns_;         // im2col workspace, (output_h * output_w) x K
  std::vector<PackedMatrix> weights_;  // one per group
};

}  // namespace

std::unique_ptr<ConvolutionAlgorithm> MakeIm2colConvolution(const ConvolutionSpec& spec) {
  return std::make_unique<Im2colConvolution>(spec);
}

}  // namespace lumen
