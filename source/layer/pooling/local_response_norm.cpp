// nn.LocalResponseNorm / F.local_response_norm: each value divided by a power of the mean of the
// squares of its neighbours across channels.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {

// out[n, c, ...] = x[n, c, ...] / (k + alpha * mean(x[n, c', ...]^2))^beta over the `size`
// channels c' in [c - size/2, c + (size-1)/2], channels outside counting as zeros: PyTorch's
// average pool of the squares across channels (its divisor is always `size`). Input (N, C, ...)
// of rank 3 or more, as PyTorch requires.
class LocalResponseNorm : public Layer {
 public:
  // Reads size, alpha, beta and k.
  explicit LocalResponseNorm(const LayerConfig& config)
      : Layer(config),
        size_(config.IntParam("size")),
        alpha_(config.FloatParam("alpha", 1e-4f)),
        beta_(config.FloatParam("beta", 0.75f)),
        k_(config.FloatParam("k", 1.0f)) {
    if (size_ < 1) Fail(Concat("size must be positive, got ", size_));
  }

  // The input's shape.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    if (input_shapes[0].size() < 3) {
      Fail(Concat("expected an input of rank 3 or more (N, C, ...), got ",
                  ShapeToString(input_shapes[0])));
    }
    return {input_shapes[0]};
  }

  // Normalises every position of every sample.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& /*context*/) const override {
    const Tensor& input = *inputs[0];
    const Shape& shape = input.shape();
    const size_t channels = shape[1];
    size_t positions = 1;
    for (size_t i = 2; i < shape.size(); ++i) positions *= shape[i];
    // Rank 3 stores (N, C, L) as N slices of column-major C x L: C runs fastest. From rank 4 on,
    // each (n, c) is a contiguous block of its positions.
    const bool rank3 = shape.size() == 3;
    const size_t channel_stride = rank3 ? 1 : positions;
    const size_t position_stride = rank3 ? channels : 1;
    const int before = size_ / 2, after = (size_ - 1) / 2;
    for (size_t n = 0; n < shape[0]; ++n) {
      const float* sample = input.data() + n * channels * positions;
      float* target = outputs[0]->data() + n * channels * positions;
      for (size_t p = 0; p < positions; ++p) {
        for (size_t c = 0; c < channels; ++c) {
          float sum = 0.0f;
          const ptrdiff_t first = std::max<ptrdiff_t>(0, static_cast<ptrdiff_t>(c) - before);
          const ptrdiff_t last = std::min<ptrdiff_t>(static_cast<ptrdiff_t>(channels) - 1,
                                                     static_cast<ptrdiff_t>(c) + after);
          for (ptrdiff_t other = first; other <= last; ++other) {
            const float value = sample[other * channel_stride + p * position_stride];
            sum += value * value;
          }
          const size_t at = c * channel_stride + p * position_stride;
          target[at] = sample[at] / std::pow(sum / size_ * alpha_ + k_, beta_);
        }
      }
    }
  }

 private:
  int size_;  // channels per neighbourhood
  float alpha_, beta_, k_;
};

LUMEN_REGISTER_LAYER(LocalResponseNorm, "nn.LocalResponseNorm", "F.local_response_norm");

}  // namespace lumen
