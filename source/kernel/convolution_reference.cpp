// The reference convolution: the definition, loop by loop. Slow, obviously right, and the ground
// truth the fast algorithms are tested against.
#include "lumen/base/parallel.hpp"
#include "lumen/kernel/convolution_algorithm.hpp"

namespace lumen {
namespace {

class ReferenceConvolution : public ConvolutionAlgorithm {
 public:
  using ConvolutionAlgorithm::ConvolutionAlgorithm;
  const char* name() const override { return "reference"; }

  void Run(const Tensor& input, Tensor* output) override {
    // LESSON 07 BEGIN: the definition: every output pixel, loop by loop
    const ConvolutionSpec& s = spec_;
    const Window2d& w = s.window;
    const int group_in = s.in_channels / s.groups;
    const int group_out = s.out_channels / s.groups;
    ParallelFor(s.out_channels, [&](int out_channel) {
      const int group = out_channel / group_out;
      for (int oy = 0; oy < s.output_h; ++oy) {
        for (int ox = 0; ox < s.output_w; ++ox) {
          float sum = 0.0f;
          for (int c = 0; c < group_in; ++c) {
            const int in_channel = group * group_in + c;
            for (int ky = 0; ky < w.kernel_h; ++ky) {
              for (int kx = 0; kx < w.kernel_w; ++kx) {
                const int iy = oy * w.stride_h - w.pad_top + ky * w.dilation_h;
                const int ix = ox * w.stride_w - w.pad_left + kx * w.dilation_w;
                if (iy < 0 || iy >= s.input_h || ix < 0 || ix >= s.input_w) continue;
                const float weight =
                    s.weights[((static_cast<size_t>(out_channel) * group_in + c) * w.kernel_h +
                               ky) *
                                  w.kernel_w +
                              kx];
                sum += weight * input.at(in_channel, iy, ix);
              }
            }
          }
          output->at(out_channel, oy, ox) = sum;
        }
      }
      FinishChannel(out_channel, output->channel_data(out_channel),
                    static_cast<size_t>(s.output_h) * s.output_w);
    });
    // LESSON 07 END
  }
};

}  // namespace

std::unique_ptr<ConvolutionAlgorithm> MakeReferenceConvolution(const ConvolutionSpec& spec) {
  return std::make_unique<ReferenceConvolution>(spec);
}

}  // namespace lumen
