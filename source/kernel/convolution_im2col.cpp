// im2col + GEMM: the general algorithm, for any stride, padding, dilation and groups.
//
// Layout trick: an output sample is a cube whose channels are contiguous column-major H x W
// matrices, so a group's output channels form one column-major (H*W) x C_out matrix. With the
// im2col matrix A ((H_out*W_out) x K, one row per output pixel, one column per (input channel,
// ky, kx)) and PyTorch's weight buffer read as a column-major K x C_out matrix B (packed once),
// A * B is the group's output.
//
// The whole im2col matrix of a 640x640 YOLO layer is tens of megabytes, far beyond any cache, so
// the output is computed in blocks of whole output columns, about a megabyte of im2col rows each.
#include <algorithm>

#include "lumen/base/parallel.hpp"
#include "lumen/kernel/convolution_algorithm.hpp"
#include "lumen/math/packed_gemm.hpp"

namespace lumen {
namespace {

class Im2colConvolution : public ConvolutionAlgorithm {
 public:
  explicit Im2colConvolution(const ConvolutionSpec& spec)
      : ConvolutionAlgorithm(spec),
        kernel_size_(spec.in_channels / spec.groups * spec.window.kernel_h * spec.window.kernel_w) {
    // Each group's weights, a column-major K x C_out/groups matrix, packed once.
    const int group_out = spec.out_channels / spec.groups;
    for (int group = 0; group < spec.groups; ++group) {
      weights_.emplace_back(
          spec.weights.data() + static_cast<size_t>(group) * group_out * kernel_size_, kernel_size_,
          group_out, kernel_size_);
    }
    spec_.weights.clear();  // the packed copy is all Run needs
    // Blocks of whole output columns, about 1 MB of im2col rows each (at least one column): large
    // enough that each pass over the packed weights computes many rows, small enough to stay in
    // the L2 caches while the GEMM packs them (4 MB blocks, which spill to L3, made ResNet18's
    // first layer 1.6 times slower on 2 threads).
    const int column_floats = spec.output_h * kernel_size_;
    block_columns_ = std::clamp(262144 / column_floats, 1, spec.output_w);
    columns_.resize(static_cast<size_t>(block_columns_) * column_floats);
  }
  const char* name() const override { return "im2col"; }

  void Run(const Tensor& input, Tensor* output) override {
    const int group_out = spec_.out_channels / spec_.groups;
    const int output_h = spec_.output_h;
    const int area = output_h * spec_.output_w;
    for (int group = 0; group < spec_.groups; ++group) {
      for (int first_column = 0; first_column < spec_.output_w; first_column += block_columns_) {
        const int first_pixel = first_column * output_h;
        const int pixels = std::min(block_columns_, spec_.output_w - first_column) * output_h;
        Im2Col(input, group, first_column, pixels);
        // (pixels x K) * (K x group_out) -> rows [first_pixel, +pixels) of the group's outputs
        float* result = output->channel_data(group * group_out) + first_pixel;
        PackedGemm(pixels, columns_.data(), pixels, weights_[group], result, area);
        ParallelFor(group_out, [&](int channel) {
          FinishChannel(group * group_out + channel, result + static_cast<size_t>(channel) * area,
                        pixels);
        });
      }
    }
  }

 private:
  // Fills columns_ with the (pixels x K) column-major im2col rows of the output columns starting
  // at first_column, for one group: column k holds input channel `channel` shifted by (ky, kx),
  // and each output column is one contiguous run of rows read from one input column.
  void Im2Col(const Tensor& input, int group, int first_column, int pixels) {
    // LESSON 07 BEGIN: one im2col column per (channel, ky, kx), for the block's pixels
    const Window2d& w = spec_.window;
    const int kernel_area = w.kernel_h * w.kernel_w;
    const int output_h = spec_.output_h;
    const int columns = pixels / output_h;
    ParallelFor(kernel_size_, [&](int k) {
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
      float* column = columns_.data() + static_cast<size_t>(k) * pixels;
      for (int c = 0; c < columns; ++c) {
        float* target = column + c * output_h;
        const int ix = (first_column + c) * w.stride_w + col_offset;
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
    });
    // LESSON 07 END
  }

  int kernel_size_;                    // K: (in_channels / groups) * kH * kW
  int block_columns_ = 1;              // output columns per block
  std::vector<float> columns_;         // im2col workspace: (block_columns * output_h) x K
  std::vector<PackedMatrix> weights_;  // one per group
};

}  // namespace

std::unique_ptr<ConvolutionAlgorithm> MakeIm2colConvolution(const ConvolutionSpec& spec) {
  return std::make_unique<Im2colConvolution>(spec);
}

}  // namespace lumen
