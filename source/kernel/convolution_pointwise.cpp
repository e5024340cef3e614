// 1x1, stride 1, no padding: each output pixel mixes the input channels of the same pixel, and an
// input sample already is the column-major (H*W) x C_in matrix im2col would build. One GEMM.
#include "lumen/base/error.hpp"
#include "lumen/kernel/convolution_algorithm.hpp"
#include "lumen/math/packed_gemm.hpp"

namespace lumen {
namespace {

class PointwiseConvolution : public ConvolutionAlgorithm {
 public:
  explicit PointwiseConvolution(const ConvolutionSpec& spec) : ConvolutionAlgorithm(spec) {
    const int group_in = spec.in_channels / spec.groups;
    const int group_out = spec.out_channels / spec.groups;
    for (int group = 0; group < spec.groups; ++group) {
      weights_.emplace_back(spec.weights.data() + static_cast<size_t>(group) * group_out * group_in,
                            group_in, group_out, group_in);
    }
    spec_.weights.clear();
  }
  const char* name() const override { return "pointwise"; }

  void Run(const Tensor& input, Tensor* output) override {
    const int group_in = spec_.in_channels / spec_.groups;
    const int group_out = spec_.out_channels / spec_.groups;
    const int area = spec_.output_h * spec_.output_w;
    for (int group = 0; group < spec_.groups; ++group) {
      PackedGemm(area, input.channel_data(group * group_in), area, weights_[group],
                 output->channel_data(group * group_out), area);
    }
#pragma omp parallel for schedule(static)
    for (int channel = 0; channel < spec_.out_channels; ++channel) {
      FinishChannel(channel, output->channel_data(channel), area);
    }
  }

 private:
  std::vector<PackedMatrix> weights_;  // one per group: C_in/groups x C_out/groups
};

}  // namespace

std::unique_ptr<ConvolutionAlgorithm> MakePointwiseConvolution(const ConvolutionSpec& spec) {
  if (!PointwiseApplies(spec)) throw Error("pointwise convolution needs 1x1, stride 1, no padding");
  return std::make_unique<PointwiseConvolution>(spec);
}

}  // namespace lumen
