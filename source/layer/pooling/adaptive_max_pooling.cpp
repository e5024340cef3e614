// nn.AdaptiveMaxPool2d / F.adaptive_max_pool2d: max pooling to a fixed output size, whatever the
// input size.
#include <cmath>
#include <cstdint>
#include <vector>

#include "base/thread_pool.hpp"
#include "layer/layer_registry.hpp"
#include "layer/pooling/pooling_shape.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// Below this many input elements the planes are pooled on one thread.
constexpr size_t kParallelElements = 1 << 12;

}  // namespace

// Output cell (i, j) is the maximum of input rows [floor(i*H/OH), ceil((i+1)*H/OH)) and the same
// columns (the bins of nn.AdaptiveAvgPool2d, which may overlap), over every plane of a (C,H,W) or
// (N,C,H,W) input. NaN wins, as in PyTorch.
class AdaptiveMaxPooling : public Layer {
 public:
  // Reads output_size (a pair, an int, or None entries meaning "keep the input size");
  // return_indices must be False.
  explicit AdaptiveMaxPooling(const LayerConfig& config)
      : Layer(config), requested_(ReadAdaptiveOutputSize(config)) {
    if (config.BoolParam("return_indices", false)) Fail("return_indices=True is not supported");
  }

  // The input with its plane resized to output_size (None entries resolved against the input).
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override {
    const PlaneSize plane = FeatureMapPlane(*this, input_shapes);
    return {PooledShape(*this, input_shapes[0],
                        requested_.height == 0 ? plane.height : requested_.height,
                        requested_.width == 0 ? plane.width : requested_.width)};
  }

  // Takes the maximum of each output cell's bin of every plane.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override {
    const Tensor& input = *inputs[0];
    Tensor& output = *outputs[0];
    // In 64 bits: index * extent overflows an int for large maps.
    const int64_t input_h = input.rows();
    const int64_t input_w = input.cols();
    const int64_t output_h = output.rows();
    const int64_t output_w = output.cols();
    ParallelFor(
        context.compute.pool, static_cast<std::ptrdiff_t>(input.channels()),
        [&](std::ptrdiff_t channel) {
          const float* source = input.channel_data(channel);
          float* target = output.channel_data(channel);
          for (int64_t ox = 0; ox < output_w; ++ox) {
            const int64_t x_begin = ox * input_w / output_w;
            const int64_t x_end = ((ox + 1) * input_w + output_w - 1) / output_w;
            for (int64_t oy = 0; oy < output_h; ++oy) {
              const int64_t y_begin = oy * input_h / output_h;
              const int64_t y_end = ((oy + 1) * input_h + output_h - 1) / output_h;
              float best = source[x_begin * input_h + y_begin];
              for (int64_t ix = x_begin; ix < x_end && !std::isnan(best); ++ix) {
                for (int64_t iy = y_begin; iy < y_end; ++iy) {
                  const float value = source[ix * input_h + iy];
                  if (value > best || std::isnan(value)) {
                    best = value;
                    if (std::isnan(value)) break;
                  }
                }
              }
              target[ox * output_h + oy] = best;
            }
          }
        },
        Schedule::kStatic, input.size() >= kParallelElements);
  }

 private:
  PlaneSize requested_;  // 0 (None): same as the input
};

LUMEN_REGISTER_LAYER(AdaptiveMaxPooling, "nn.AdaptiveMaxPool2d", "F.adaptive_max_pool2d");

}  // namespace lumen
