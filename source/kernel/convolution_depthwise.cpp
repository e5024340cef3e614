// Depthwise convolution (groups == in_channels): each output channel reads one input channel, so
// there is nothing for a GEMM to share. Direct loops instead: for every kernel tap, add
// weight * (the input shifted by that tap) to the output, one contiguous column at a time.
#include <algorithm>

#include "convolution_factories.hpp"
#include "lumen/base/error.hpp"
#include "lumen/base/thread_pool.hpp"
#include "lumen/kernel/convolution_algorithm.hpp"

namespace lumen {
namespace {

class DepthwiseConvolution : public ConvolutionAlgorithm {
 public:
  // Keeps the weights as they are: one kH x kW kernel per output channel, row-major.
  explicit DepthwiseConvolution(const ConvolutionSpec& spec)
      : ConvolutionAlgorithm(spec), weights_(spec.weights) {}
  ConvolutionAlgorithmKind kind() const override { return ConvolutionAlgorithmKind::kDepthwise; }

  // Nothing to plan: one task per output channel, no scratch.
  ConvolutionPlan Plan(const ConvolutionShape& shape, const Activation& activation,
                       int /*threads*/) const override {
    return BasicPlan(shape, activation);
  }

  void Run(const ConvolutionPlan& plan, const float* input, float* output,
           const ComputeContext& context) const override {
    const ConvolutionShape& s = plan.shape;
    const Window2d& w = window_;
    const int multiplier = out_channels_ / in_channels_;
    const int output_h = s.output_h;
    const int taps = w.kernel_h * w.kernel_w;
    const size_t input_area = static_cast<size_t>(s.input_h) * s.input_w;
    const size_t output_area = static_cast<size_t>(output_h) * s.output_w;
    ParallelFor(context.pool, out_channels_, [&](std::ptrdiff_t index) {
      const int channel = static_cast<int>(index);
      const float* source = input + (channel / multiplier) * input_area;
      float* target = output + channel * output_area;
      std::fill(target, target + output_area, 0.0f);
      for (int ky = 0; ky < w.kernel_h; ++ky) {
        const int row_offset = ky * w.dilation_h - w.pad_top;
        // Output rows whose input row (oy * stride + row_offset) lies inside the image.
        const int first_row = std::clamp((-row_offset + w.stride_h - 1) / w.stride_h, 0, output_h);
        const int end_row =
            std::clamp((s.input_h - row_offset + w.stride_h - 1) / w.stride_h, first_row, output_h);
        for (int kx = 0; kx < w.kernel_w; ++kx) {
          const float weight = weights_[static_cast<size_t>(channel) * taps + ky * w.kernel_w + kx];
          for (int ox = 0; ox < s.output_w; ++ox) {
            const int ix = ox * w.stride_w + kx * w.dilation_w - w.pad_left;
            if (ix < 0 || ix >= s.input_w) continue;
            const float* input_column = source + ix * s.input_h;
            float* output_column = target + ox * output_h;
            for (int oy = first_row; oy < end_row; ++oy) {
              output_column[oy] += weight * input_column[oy * w.stride_h + row_offset];
            }
          }
        }
      }
      FinishChannel(plan.activation, channel, target, output_area);
    });
  }

 private:
  std::vector<float> weights_;  // (out, 1, kH, kW), row-major
};

}  // namespace

std::unique_ptr<ConvolutionAlgorithm> MakeDepthwiseConvolution(const ConvolutionSpec& spec) {
  if (!DepthwiseApplies(spec)) throw Error("depthwise convolution needs groups == in_channels");
  return std::make_unique<DepthwiseConvolution>(spec);
}

}  // namespace lumen
