// lumen.QuantizedConv2d: nn.Conv2d with int8 weights, computed by the int8 GEMM.
//
// The file format (see quantized_weights.hpp and course/pnnx-format.md): nn.Conv2d's parameters
// (in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias; padding_mode
// zeros only) plus input_scale and input_zero_point; @weight i8 of shape
// (out_channels, in_channels / groups, kH, kW), @weight_scales f32 (out_channels), @bias f32.
//
// Input and output are float, so that a model mixes quantised and fp32 layers: Forward quantises
// the input per tensor, lays out the uint8 im2col rows (a 1x1 stride-1 convolution's input planes
// already are them), and Int8Gemm dequantises, adds the bias and applies the fused activation.
#include <climits>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/checked_math.hpp"
#include "base/thread_pool.hpp"
#include "kernel/convolution_algorithm.hpp"
#include "kernel/quantized_im2col.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "layer/quantized/quantized_weights.hpp"
#include "layer/window.hpp"
#include "lumen/error.hpp"
#include "math/int8_gemm.hpp"

namespace lumen {
namespace {

// What a QuantizedConvolution keeps per session and input size: the plane sizes and the bytes
// one sample's quantised input and one group's im2col rows take.
class QuantizedConvolutionState : public LayerState {
 public:
  // Buffers for `shape`; `row_bytes` 0 when the input planes are the rows.
  QuantizedConvolutionState(const ConvolutionShape& shape, size_t input_bytes, size_t row_bytes)
      : shape(shape), quantized_input(input_bytes), rows(row_bytes) {}
  // The buffers.
  size_t bytes() const override { return quantized_input.size() + rows.size(); }

  ConvolutionShape shape;
  std::vector<uint8_t> quantized_input;  // one sample
  std::vector<uint8_t> rows;             // one group's im2col matrix of one sample
};

}  // namespace

// A 2-D convolution on int8 weights (per output channel) and uint8 activations (per tensor).
class QuantizedConvolution : public Layer {
 public:
  // Reads and checks the parameters and weights, and packs each group's weights once.
  explicit QuantizedConvolution(const LayerConfig& config);
  // (N, in_channels, H, W) or (in_channels, H, W) -> the same with out_channels and the size the
  // window gives.
  Shapes OutputShapes(const Shapes&) const override;
  // Sizes the session's quantised input and im2col rows, and reserves the GEMM's scratch.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Quantises each sample, lays out its rows and multiplies each group.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;
  // Applies `activation` in the GEMM's epilogue, if none is fused yet (a following ReLU).
  bool FuseActivation(const Activation& activation) override;

 private:
  // The planes of one sample; throws lumen::Error naming the layer for an input of the wrong
  // shape or one the window does not fit.
  ConvolutionShape SampleShape(const Shape& input) const;
  // True when each input plane is already a column of the GEMM's A: a 1x1 window of stride 1
  // without padding.
  bool InputIsRows() const;

  int in_channels_ = 0;
  int out_channels_ = 0;
  int groups_ = 1;
  Window2d window_;
  Uint8Quantization input_quantization_;
  std::vector<Int8PackedWeights> group_weights_;  // one per group
  std::vector<float> bias_;                       // empty without bias
  Activation activation_;
  bool activation_fused_ = false;
};

QuantizedConvolution::QuantizedConvolution(const LayerConfig& config) : Layer(config) {
  in_channels_ = config.IntParam("in_channels");
  out_channels_ = config.IntParam("out_channels");
  groups_ = config.IntParam("groups", 1);
  const std::string padding_mode = config.StringParam("padding_mode", "zeros");
  if (padding_mode != "zeros") {
    Fail(Concat("padding_mode ", padding_mode, " is not supported (only zeros)"));
  }
  window_ = ReadWindow2d(config, false);
  if (config.HasParam("padding") && config.Param("padding").type() == Parameter::Type::kString &&
      config.Param("padding").AsString() == "same" &&
      (window_.stride_h != 1 || window_.stride_w != 1)) {
    Fail("padding='same' is not supported for strided convolutions");
  }
  if (groups_ < 1 || in_channels_ < 1 || out_channels_ < 1 || in_channels_ % groups_ != 0 ||
      out_channels_ % groups_ != 0) {
    Fail(Concat("in_channels ", in_channels_, " and out_channels ", out_channels_,
                " must be positive multiples of groups ", groups_));
  }
  input_quantization_ = ReadInputQuantization(config);
  const int group_inputs = in_channels_ / groups_;
  const int group_outputs = out_channels_ / groups_;
  const int64_t depth = int64_t{group_inputs} * window_.kernel_h * window_.kernel_w;
  if (depth > kInt8GemmMaxDepth) {
    Fail(Concat("the weights of one output channel (", group_inputs, "x", window_.kernel_h, "x",
                window_.kernel_w, ") are ", depth, ", more than the int8 GEMM's ",
                kInt8GemmMaxDepth));
  }
  const QuantizedWeights weights = ReadQuantizedWeights(
      config, {out_channels_, group_inputs, window_.kernel_h, window_.kernel_w});
  const int k = static_cast<int>(depth);
  for (int group = 0; group < groups_; ++group) {
    const size_t first = static_cast<size_t>(group) * group_outputs;
    group_weights_.emplace_back(weights.values.data() + first * k, group_outputs, k, k,
                                weights.scales.data() + first);
  }
  if (config.BoolParam("bias", false)) bias_ = config.AttributeFloats("bias", {out_channels_});
}

bool QuantizedConvolution::InputIsRows() const {
  const Window2d& w = window_;
  return w.kernel_h == 1 && w.kernel_w == 1 && w.stride_h == 1 && w.stride_w == 1 &&
         w.pad_top == 0 && w.pad_bottom == 0 && w.pad_left == 0 && w.pad_right == 0;
}

ConvolutionShape QuantizedConvolution::SampleShape(const Shape& input) const {
  const size_t rank = input.size();
  if ((rank != 3 && rank != 4) || input[rank - 3] != static_cast<uint32_t>(in_channels_)) {
    Fail(Concat("expected an input of shape (N,", in_channels_, ",H,W) or (", in_channels_,
                ",H,W), got ", ShapeToString(input)));
  }
  if (input[rank - 2] == 0 || input[rank - 1] == 0) {
    Fail(Concat("the input ", ShapeToString(input), " has an empty plane"));
  }
  ConvolutionShape shape;
  try {
    shape = MakeConvolutionShape(window_, CheckedInt(input[rank - 2], "convolution input height"),
                                 CheckedInt(input[rank - 1], "convolution input width"));
  } catch (const Error& error) {
    Fail(Concat("input ", ShapeToString(input), ": ", error.what()));
  }
  if (shape.output_h < 1 || shape.output_w < 1) {
    Fail(Concat("the ", window_.kernel_h, "x", window_.kernel_w, " kernel (dilation ",
                window_.dilation_h, "x", window_.dilation_w, ") does not fit in the input ",
                ShapeToString(input), " padded to ",
                int64_t{shape.input_h} + window_.pad_top + window_.pad_bottom, "x",
                int64_t{shape.input_w} + window_.pad_left + window_.pad_right));
  }
  return shape;
}

Shapes QuantizedConvolution::OutputShapes(const Shapes& input_shapes) const {
  CheckInputCount(input_shapes, 1);
  const ConvolutionShape shape = SampleShape(input_shapes[0]);
  Shape output = input_shapes[0];
  const size_t rank = output.size();
  output[rank - 3] = static_cast<uint32_t>(out_channels_);
  output[rank - 2] = static_cast<uint32_t>(shape.output_h);
  output[rank - 1] = static_cast<uint32_t>(shape.output_w);
  return {output};
}

StatePointer QuantizedConvolution::Prepare(const Shapes& input_shapes, const Shapes&,
                                           const PrepareContext& context) const {
  CheckInputCount(input_shapes, 1);
  const ConvolutionShape shape = SampleShape(input_shapes[0]);
  const size_t pixels = static_cast<size_t>(shape.output_h) * shape.output_w;
  const size_t input_bytes =
      CheckedMultiply(static_cast<size_t>(in_channels_),
                      static_cast<size_t>(shape.input_h) * shape.input_w, "quantised input");
  const size_t row_bytes =
      InputIsRows() ? 0
                    : CheckedMultiply(pixels, static_cast<size_t>(group_weights_[0].depth()),
                                      "quantised im2col rows");
  if (pixels > INT_MAX) Fail(Concat("the output plane of ", pixels, " pixels is too large"));
  if (context.workspace != nullptr) {
    context.workspace->Reserve(ScratchSlot::kGemmPacking,
                               Int8GemmScratchSize(static_cast<int>(pixels), group_weights_[0]));
  }
  return std::make_unique<QuantizedConvolutionState>(shape, input_bytes, row_bytes);
}

void QuantizedConvolution::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                                   const ForwardContext& context) const {
  QuantizedConvolutionState& state = context.state_as<QuantizedConvolutionState>();
  const ConvolutionShape& shape = state.shape;
  const Tensor& input = *inputs[0];
  Tensor& output = *outputs[0];
  const size_t samples = input.rank() == 4 ? input.shape()[0] : 1;
  const size_t input_plane = static_cast<size_t>(shape.input_h) * shape.input_w;
  const int pixels = shape.output_h * shape.output_w;
  const int group_inputs = in_channels_ / groups_;
  const int group_outputs = out_channels_ / groups_;
  const size_t input_floats = in_channels_ * input_plane;
  const size_t output_floats = static_cast<size_t>(out_channels_) * pixels;
  uint8_t* quantized = state.quantized_input.data();
  for (size_t sample = 0; sample < samples; ++sample) {
    const float* source = input.data() + sample * input_floats;
    ParallelForRuns(context.compute.pool, in_channels_, input_plane, [&](size_t first, size_t end) {
      QuantizeToUint8(source + first * input_plane, (end - first) * input_plane,
                      input_quantization_, quantized + first * input_plane);
    });
    for (int group = 0; group < groups_; ++group) {
      const uint8_t* group_input = quantized + group * group_inputs * input_plane;
      const uint8_t* rows = group_input;
      if (!InputIsRows()) {
        QuantizedIm2col(group_input, group_inputs, shape, window_,
                        static_cast<uint8_t>(input_quantization_.zero_point), state.rows.data(),
                        context.compute.pool);
        rows = state.rows.data();
      }
      const size_t first_output = static_cast<size_t>(group) * group_outputs;
      Int8Gemm(pixels, rows, pixels, input_quantization_, group_weights_[group],
               bias_.empty() ? nullptr : bias_.data() + first_output, activation_,
               output.data() + sample * output_floats + first_output * pixels, pixels,
               context.compute);
    }
  }
}

bool QuantizedConvolution::FuseActivation(const Activation& activation) {
  if (activation_fused_) return false;
  activation_ = activation;
  activation_fused_ = true;
  return true;
}

LUMEN_REGISTER_LAYER(QuantizedConvolution, "lumen.QuantizedConv2d");

}  // namespace lumen
