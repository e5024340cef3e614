// nn.AdaptiveAvgPool2d: average pooling to a fixed output size, whatever the input size.
#include <cstdint>
#include <vector>

#include "base/thread_pool.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "layer/pooling/pooling_shape.hpp"
#include "lumen/error.hpp"

namespace lumen {

// Output cell (i, j) averages input rows [floor(i*H/OH), ceil((i+1)*H/OH)) and the same for
// columns, over every plane of a (C,H,W) or (N,C,H,W) input.
class AdaptiveAveragePooling : public Layer {
 public:
  // Reads output_size (a pair, an int, or None entries meaning "keep the input size").
  explicit AdaptiveAveragePooling(const LayerConfig& config);
  // The input with its plane resized to output_size (None entries resolved against the input).
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Averages each output cell's bin of every plane.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  int requested_h_ = 0;  // from output_size; 0 (None): same as the input
  int requested_w_ = 0;
};

namespace {

// Below this many input elements the planes are pooled on one thread.
constexpr size_t kParallelElements = 1 << 12;

// The sum of `count` consecutive floats, in eight running sums that the compiler vectorises: one
// running sum is a chain of dependent adds, which made a squeeze-and-excitation block's global
// pool cost about 1 ns per float.
float SumRun(const float* run, int64_t count) {
  float partial[8] = {};
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    for (int lane = 0; lane < 8; ++lane) partial[lane] += run[i + lane];
  }
  float sum = 0.0f;
  for (; i < count; ++i) sum += run[i];
  for (const float value : partial) sum += value;
  return sum;
}

}  // namespace

AdaptiveAveragePooling::AdaptiveAveragePooling(const LayerConfig& config) : Layer(config) {
  const PlaneSize requested = ReadAdaptiveOutputSize(config);
  requested_h_ = requested.height;
  requested_w_ = requested.width;
}

std::vector<Shape> AdaptiveAveragePooling::OutputShapes(
    const std::vector<Shape>& input_shapes) const {
  const PlaneSize plane = FeatureMapPlane(*this, input_shapes);
  return {PooledShape(*this, input_shapes[0], requested_h_ == 0 ? plane.height : requested_h_,
                      requested_w_ == 0 ? plane.width : requested_w_)};
}

void AdaptiveAveragePooling::Forward(const std::vector<const Tensor*>& inputs,
                                     const std::vector<Tensor*>& outputs,
                                     const ForwardContext& context) const {
  // LESSON 09 BEGIN: average each output cell's window, as PyTorch places it
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
            float sum = 0.0f;
            if (y_begin == 0 && y_end == input_h) {  // whole columns: one run (a global pool)
              sum = SumRun(source + x_begin * input_h, (x_end - x_begin) * input_h);
            } else {
              for (int64_t ix = x_begin; ix < x_end; ++ix) {
                sum += SumRun(source + ix * input_h + y_begin, y_end - y_begin);
              }
            }
            target[ox * output_h + oy] =
                sum / static_cast<float>((y_end - y_begin) * (x_end - x_begin));
          }
        }
      },
      Schedule::kStatic, input.size() >= kParallelElements);
  // LESSON 09 END
}

LUMEN_REGISTER_LAYER(AdaptiveAveragePooling, "nn.AdaptiveAvgPool2d", "F.adaptive_avg_pool2d");

}  // namespace lumen
