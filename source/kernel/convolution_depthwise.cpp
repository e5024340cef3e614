// Depthwise convolution (groups == in_channels): each output channel reads one input channel, so
// there is nothing for a GEMM to share. Direct loops instead: for every kernel tap, add
// weight * (the input shifted by that tap) to the output, one contiguous column at a time.
#include <algorithm>

#include "lumen/base/error.hpp"
#include "lumen/base/parallel.hpp"
#include "lumen/kernel/convolution_algorithm.hpp"

namespace lumen {
namespace {

class DepthwiseConvolution : public ConvolutionAlgorithm {
 public:
  using ConvolutionAlgorithm::ConvolutionAlgorithm;
  const char* name() const override { return "depthwise"; }

  void Run(const Tensor& input, Tensor* output) override {
    const Window2d& w = spec_.window;
    const int multiplier = spec_.out_channels / spec_.in_channels;
    const int output_h = spec_.output_h;
    const int taps = w.kernel_h * w.kernel_w;
    ParallelFor(spec_.out_channels, [&](int channel) {
      const float* source = input.channel_data(channel / multiplier);
      float* target = output->channel_data(channel);
      std::fill(target, target + static_cast<size_t>(output_h) * spec_.output_w, 0.0f);
      for (int ky = 0; ky < w.kernel_h; ++ky) {
        const int row_offset = ky * w.dilation_h - w.pad_top;
        // Output rows whose input row (oy * stride + row_offset) lies inside the image.
        const int first_row = std::clamp((-row_offset + w.stride_h - 1) / w.stride_h, 0, output_h);
        const int end_row = std::clamp((spec_.input_h - row_offset + w.stride_h - 1) / w.stride_h,
                                       first_row, output_h);
        for (int kx = 0; kx < w.kernel_w; ++kx) {
          const float weight =
              spec_.weights[static_cast<size_t>(channel) * taps + ky * w.kernel_w + kx];
          for (int ox = 0; ox < spec_.output_w; ++ox) {
            const int ix = ox * w.stride_w + kx * w.dilation_w - w.pad_left;
            if (ix < 0 || ix >= spec_.input_w) continue;
            const float* input_column = source + ix * spec_.input_h;
            float* output_column = target + ox * output_h;
            for (int oy = first_row; oy < end_row; ++oy) {
              output_column[oy] += weight * input_column[oy * w.stride_h + row_offset];
            }
          }
        }
      }
      FinishChannel(channel, target, static_cast<size_t>(output_h) * spec_.output_w);
    });
  }
};

}  // namespace

std::unique_ptr<ConvolutionAlgorithm> MakeDepthwiseConvolution(const ConvolutionSpec& spec) {
  if (!DepthwiseApplies(spec)) throw Error("depthwise convolution needs groups == in_channels");
  return std::make_unique<DepthwiseConvolution>(spec);
}

}  // namespace lumen
