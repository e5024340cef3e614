// The reference convolution: the definition, loop by loop. Slow, obviously right, and the ground
// truth the fast algorithms are tested against.
#include "base/thread_pool.hpp"
#include "convolution_factories.hpp"
#include "kernel/convolution_algorithm.hpp"

namespace lumen {
namespace {

class ReferenceConvolution : public ConvolutionAlgorithm {
 public:
  // Keeps the weights as PyTorch lays them out.
  explicit ReferenceConvolution(const ConvolutionSpec& spec)
      : ConvolutionAlgorithm(spec), weights_(spec.weights) {}
  ConvolutionAlgorithmKind kind() const override { return ConvolutionAlgorithmKind::kReference; }

  // Nothing to plan: no blocks, no scratch.
  ConvolutionPlan Plan(const ConvolutionShape& shape, const Activation& activation,
                       int /*threads*/) const override {
    return BasicPlan(shape, activation);
  }

  void Run(const ConvolutionPlan& plan, const float* input, float* output,
           const ComputeContext& context) const override {
    // LESSON 07 BEGIN: the definition: every output pixel, loop by loop
    const ConvolutionShape& s = plan.shape;
    const Window2d& w = window_;
    const int group_in = in_channels_ / groups_;
    const int group_out = out_channels_ / groups_;
    const size_t input_area = static_cast<size_t>(s.input_h) * s.input_w;
    const size_t output_area = static_cast<size_t>(s.output_h) * s.output_w;
    ParallelFor(context.pool, out_channels_, [&](std::ptrdiff_t index) {
      const int out_channel = static_cast<int>(index);
      const int group = out_channel / group_out;
      float* target = output + out_channel * output_area;  // column-major output_h x output_w
      for (int oy = 0; oy < s.output_h; ++oy) {
        for (int ox = 0; ox < s.output_w; ++ox) {
          float sum = 0.0f;
          for (int c = 0; c < group_in; ++c) {
            const float* source = input + (group * group_in + c) * input_area;
            for (int ky = 0; ky < w.kernel_h; ++ky) {
              for (int kx = 0; kx < w.kernel_w; ++kx) {
                const int iy = oy * w.stride_h - w.pad_top + ky * w.dilation_h;
                const int ix = ox * w.stride_w - w.pad_left + kx * w.dilation_w;
                if (iy < 0 || iy >= s.input_h || ix < 0 || ix >= s.input_w) continue;
                const float weight =
                    weights_[((static_cast<size_t>(out_channel) * group_in + c) * w.kernel_h + ky) *
                                 w.kernel_w +
                             kx];
                sum += weight * source[static_cast<size_t>(ix) * s.input_h + iy];
              }
            }
          }
          target[static_cast<size_t>(ox) * s.output_h + oy] = sum;
        }
      }
      FinishChannel(plan.activation, out_channel, target, output_area);
    });
    // LESSON 07 END
  }

 private:
  std::vector<float> weights_;  // PyTorch's (out, in/groups, kH, kW), row-major
};

}  // namespace

std::unique_ptr<ConvolutionAlgorithm> MakeReferenceConvolution(const ConvolutionSpec& spec) {
  return std::make_unique<ReferenceConvolution>(spec);
}

}  // namespace lumen
