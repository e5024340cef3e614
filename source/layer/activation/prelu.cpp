// nn.PReLU / F.prelu: x where x > 0, weight[c] * x elsewhere, with one slope for every element or
// one per channel (dimension 1; inputs of rank 0 or 1 have a single channel, as in PyTorch).
// A single stored slope is a leaky ReLU: the layer then offers it as its activation, so it can
// be fused into the layer before, computing exactly what math/activation.hpp computes.
#include <algorithm>

#include "base/thread_pool.hpp"
#include "layer/layer_registry.hpp"
#include "layer/slicewise_layer.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// Below this many elements the layer runs on one thread.
constexpr size_t kParallelElements = 1 << 14;

// Parametric ReLU.
class Prelu : public Layer {
 public:
  // nn.PReLU: num_parameters and @weight; F.prelu: a weight operand.
  explicit Prelu(const LayerConfig& config) : Layer(config) {
    if (config.type() == "F.prelu") {
      // F.prelu(input, weight): the weight is the second operand.
      slopes_ = WeightParameter::FromInput(config.InputIndexOfRole("weight", 1));
      return;
    }
    const int count = config.IntParam("num_parameters", 1);
    if (count < 1) Fail(Concat("num_parameters must be positive, got ", count));
    slopes_ = WeightParameter::FromAttribute(config, "weight", {static_cast<uint32_t>(count)});
    if (count == 1) activation_ = {Activation::Kind::kLeakyRelu, slopes_.tensor({}).data()[0]};
  }

  // The input, plus F.prelu's weight operand of 1 or C elements.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, slopes_.input() >= 0 ? 2 : 1);
    const Shape& input = input_shapes[0];
    const Shape& weight = slopes_.shape(input_shapes);
    if (weight.size() > 1)
      Fail(Concat("weight must be a vector, got shape ", ShapeToString(weight)));
    const size_t slopes = ShapeElementCount(weight);
    const size_t channels = input.size() >= 2 ? input[1] : 1;
    if (slopes != 1 && slopes != channels) {
      Fail(Concat("expected 1 slope or one per channel (", channels, " in input ",
                  ShapeToString(input), "), got ", slopes));
    }
    return {input};
  }

  // Locates the channel dimension in memory for this input shape.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& /*output_shapes*/,
                       const PrepareContext& /*context*/) const override {
    auto state = std::make_unique<AxisSplitState>();
    const Shape& input = input_shapes[0];
    if (input.size() >= 2) {
      state->split = SplitAroundAxis(input, 1);
    } else {
      state->split = AxisSplit{1, 1, ShapeElementCount(input)};
    }
    return state;
  }

  // Applies each channel's slope.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const AxisSplit& split = context.state_as<AxisSplitState>().split;
    const Tensor& weight = slopes_.tensor(inputs);
    const float* slopes = weight.data();
    const size_t slope_count = weight.size();
    const float* x = inputs[0]->data();
    float* y = outputs[0]->data();
    const size_t channels = split.extent;
    const size_t inner = split.inner;
    const bool shared = slope_count == 1;
    ParallelFor(
        context.compute.pool, static_cast<std::ptrdiff_t>(split.outer),
        [&](std::ptrdiff_t outer) {
          const size_t base = static_cast<size_t>(outer) * channels * inner;
          if (inner == 1 && !shared) {
            // Channels are contiguous (an (N, C, L) input): one slope per element.
            for (size_t c = 0; c < channels; ++c) {
              const float value = x[base + c];
              y[base + c] = value > 0.0f ? value : value * slopes[c];
            }
            return;
          }
          for (size_t c = 0; c < channels; ++c) {
            const float slope = slopes[shared ? 0 : c];
            const float* source = x + base + c * inner;
            float* target = y + base + c * inner;
            for (size_t i = 0; i < inner; ++i) {
              target[i] = source[i] > 0.0f ? source[i] : source[i] * slope;
            }
          }
        },
        Schedule::kStatic, inputs[0]->size() >= kParallelElements);
  }

  // A single stored slope is nn.LeakyReLU's function: offered for fusion.
  const Activation* ElementwiseActivation() const override {
    const bool one_stored_slope = slopes_.input() < 0 && slopes_.tensor({}).size() == 1;
    return one_stored_slope ? &activation_ : nullptr;
  }

 private:
  WeightParameter slopes_;  // nn.PReLU's stored weight, or F.prelu's operand
  Activation activation_;
};

}  // namespace

LUMEN_REGISTER_LAYER(Prelu, "nn.PReLU", "F.prelu");

}  // namespace lumen
