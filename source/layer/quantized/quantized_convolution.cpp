// lumen.QuantizedConv2d: nn.Conv2d with int8 weights, computed by the int8 GEMM, by an integer
// Winograd, or (narrow layers) in fp32 with the weights dequantised.
//
// The file format (see quantized_weights.hpp and course/pnnx-format.md): nn.Conv2d's parameters
// (in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias; padding_mode
// zeros only) plus input_scale and input_zero_point; @weight i8 of shape
// (out_channels, in_channels / groups, kH, kW), @weight_scales f32 (out_channels), @bias f32.
//
// Input and output are float, so that a model mixes quantised and fp32 layers: Forward quantises
// the input per tensor, lays out the uint8 im2col rows (a 1x1 stride-1 convolution's input planes
// already are them), and Int8Gemm dequantises, adds the bias and applies the fused activation.
//
// Which form computes the layer (Form below): 3x3 stride-1 layers in exact int8 arithmetic (the
// int8 GEMM with VNNI or AMX, an integer Winograd without), the narrowest of the others (below) in
// their float form on every CPU, the rest on the int8 GEMM. Without VNNI, AVX2's int8 GEMM
// multiplies only about twice as many products per instruction as fp32's FMA, while fp32 runs 3x3
// stride-1 layers with Winograd (4x fewer products): on the int8 GEMM, ResNet18's 3x3 layers took
// 1.1-1.4x the fp32 layer's time at one thread on Zen 3 (AVX2). So there 3x3 stride-1 layers run
// kernel/quantized_winograd: F(2x2, 3x3) on the integers, exact, with the int8 GEMM's int16
// micro-kernel (2.25x fewer products, no im2col). Against the fp32 layer,
// BM_QuantizedConvolutionLayer (four runs, medians of 5 to 9, a noisy machine): ResNet18's
// 64@56 0.63-0.81x, 128@28 0.65-0.88x, 256@14 0.95-1.06x (its 49 tiles fill 64 panel rows), 512@7
// 0.58-0.73x. The other layers run on the int8 GEMM when it pays:
// against the fp32 layer (two to three runs), ResNet18's strided 3x3 0.69-0.78x, its 7x7 stem
// 0.76-0.92x, its strided 1x1 0.88-1.03x, MobileNetV2's wider 1x1 layers 0.56-0.96x. The
// narrowest layers, with fewer than 32 products per output or 32 output channels
// (QuantizedConvolutionComputesInInt8, which the quantiser also asks), gain nothing there
// (MobileNetV2's 3->16 stem 1.17-1.28x, its 1x1 layers on the largest maps 8->48 0.66-1.11x,
// 16->8 1.03-1.26x, 96->24 0.90-1.18x; on AMX, full-width MobileNetV2's 24->144 on 56x56 maps
// 1.2-1.4x alone, 1.7x in the model, and its 3->32 stem 1.26x, while 32->192 on 28x28 breaks
// even; its deep projections to 24 outputs, 96->24 and 144->24, took 0.65x alone on AMX, but
// computing them in int8 saved at most 3% of the model's time, within the noise, and cost
// accuracy, min cosine 0.99828 -> 0.99789): the int8 path's passes (quantising the input, widening
// it, dequantising) cost what its products save, and on large maps the layer's time is writing its
// output. They run in their float form: an fp32 convolution of the float input with the dequantised
// weights (scale_j * q_w), weight-only quantisation for that layer, as TensorRT also falls back to
// a higher precision where int8 is not faster. It takes the fp32 layer's time and skips the input's
// rounding, which is why it is chosen on VNNI CPUs too: rounding the input of layers of 8 to 24
// channels is most of a MobileNetV2's int8 error (its mean cosine with fp32, 32 inputs: 0.99078
// with every layer int8, 0.99654 with these in float form), while their few products per output
// leave little for any int8 kernel to gain over the passes around it. So a file computes the same
// numbers on every CPU (the Winograd and GEMM forms give identical outputs). Since 2026-11-29
// lumen_quantize leaves such layers fp32 altogether (their int8 weights were the larger part of the
// remaining error: MobileNetV2's minimum cosine 0.99447 with them, 0.99904 without); the float form
// serves files quantised before, and LUMEN_QUANTIZED_KERNELS=float. (Computing such layers in fp32
// on the quantised and dequantised input, the int8 GEMM's exact values, lost everywhere: 1.0-1.65x
// the int8 GEMM's time. The strided layers and stems ran so until the stride-2 im2col was
// vectorised: its byte-at-a-time gather took a third of their time.) LUMEN_QUANTIZED_KERNELS in the
// environment overrides the choice (to compare, and for the tests): "int8" keeps every layer on the
// int8 GEMM, "winograd" runs Winograd wherever it applies and the int8 GEMM elsewhere, "float"
// every layer in its float form.
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "base/checked_math.hpp"
#include "base/thread_pool.hpp"
#include "kernel/convolution_algorithm.hpp"
#include "kernel/quantized_im2col.hpp"
#include "kernel/quantized_winograd.hpp"
#include "layer/convolution/convolution.hpp"
#include "layer/convolution/convolution_layer.hpp"
#include "layer/layer_registry.hpp"
#include "layer/quantized/quantized_weights.hpp"
#include "lumen/error.hpp"
#include "math/int8_gemm.hpp"

namespace lumen {
namespace {

// What a QuantizedConvolution keeps per session and input size: the plane sizes and the bytes
// one sample's quantised input and one group's im2col rows (or its Winograd-domain input) take.
class QuantizedConvolutionState : public LayerState {
 public:
  // Buffers for `shape`; `row_bytes` 0 when the input planes are the rows.
  QuantizedConvolutionState(const ConvolutionShape& shape, size_t input_bytes, size_t row_bytes)
      : shape(shape), quantized_input(input_bytes), rows(row_bytes) {}
  // The buffers.
  size_t bytes() const override {
    return quantized_input.size() + rows.size() + transformed.size() * sizeof(int16_t) +
           (float_state ? float_state->bytes() : 0);
  }

  ConvolutionShape shape;
  std::vector<uint8_t> quantized_input;  // one sample
  std::vector<uint8_t> rows;             // one group's im2col matrix of one sample
  std::vector<int16_t> transformed;      // Winograd: one sample's shared V (small maps), or none
  StatePointer float_state;              // float form: the fp32 convolution's state
};

// What LUMEN_QUANTIZED_KERNELS asks for: "int8", "winograd" or "float", or "" (the CPU's choice).
std::string KernelsAskedFor() {
  const char* kernels = std::getenv("LUMEN_QUANTIZED_KERNELS");
  return kernels == nullptr ? std::string() : std::string(kernels);
}

}  // namespace

// A 2-D convolution on int8 weights (per output channel) and uint8 activations (per tensor).
class QuantizedConvolution : public ConvolutionLayer {
 public:
  // Reads and checks the parameters and weights, and packs each group's weights once.
  explicit QuantizedConvolution(const LayerConfig& config);
  // Sizes the session's quantised input and im2col rows, and reserves the GEMM's scratch.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Quantises each sample, lays out its rows and multiplies each group.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;
  // Applies `activation` in the GEMM's epilogue, if none is fused yet (a following ReLU).
  bool FuseActivation(const Activation& activation) override;

 private:
  // True when each input plane is already a column of the GEMM's A: a 1x1 window of stride 1
  // without padding.
  bool InputIsRows() const;
  // The ways to compute the layer (see the top of this file).
  enum class Form { kInt8Gemm, kWinograd, kFloat };
  // The form this CPU (or LUMEN_QUANTIZED_KERNELS) chooses.
  Form ChooseForm() const;
  // Builds float_form_, the fp32 convolution of the dequantised weights.
  void BuildFloatForm(const QuantizedWeights& weights);

  std::vector<Int8PackedWeights> group_weights_;  // one per group; empty in the other forms
  std::unique_ptr<QuantizedWinograd> winograd_;   // the Winograd form, or null
  std::unique_ptr<Convolution> float_form_;       // the float form, or null
  QuantizedEdges edges_;                          // input quantisation, bias, fused activation
};

QuantizedConvolution::QuantizedConvolution(const LayerConfig& config) : ConvolutionLayer(config) {
  if (padding_mode_ != PaddingMode::kConstant) {
    Fail(Concat("padding_mode ", PaddingModeName(padding_mode_), " is not supported (only zeros)"));
  }
  edges_ = QuantizedEdges(config, out_channels_);
  const int group_inputs = in_channels_ / groups_;
  const int group_outputs = out_channels_ / groups_;
  const int64_t depth = int64_t{group_inputs} * window_.kernel_h * window_.kernel_w;
  if (depth > kInt8GemmMaxDepth) {
    Fail(Concat("the weights of one output channel (", group_inputs, "x", window_.kernel_h, "x",
                window_.kernel_w, ") are ", depth, ", more than the int8 GEMM's ",
                kInt8GemmMaxDepth));
  }
  const int k = static_cast<int>(depth);
  const QuantizedWeights weights = ReadQuantizedWeights(
      config, {out_channels_, group_inputs, window_.kernel_h, window_.kernel_w});
  const Form form = ChooseForm();
  if (form == Form::kFloat) {
    BuildFloatForm(weights);
    return;
  }
  if (form == Form::kWinograd) {
    const Int8Isa isa = Int8IsaAvailable(Int8Isa::kAvx2) ? Int8Isa::kAvx2 : Int8Isa::kGeneric;
    winograd_ = std::make_unique<QuantizedWinograd>(weights.values.data(), out_channels_,
                                                    in_channels_, weights.scales.data(), isa);
    return;
  }
  for (int group = 0; group < groups_; ++group) {
    const size_t first = static_cast<size_t>(group) * group_outputs;
    group_weights_.emplace_back(weights.values.data() + first * k, group_outputs, k, k,
                                weights.scales.data() + first);
  }
}

bool QuantizedConvolution::InputIsRows() const {
  const Window2d& w = window_;
  return w.kernel_h == 1 && w.kernel_w == 1 && w.stride_h == 1 && w.stride_w == 1 &&
         w.pad_top == 0 && w.pad_bottom == 0 && w.pad_left == 0 && w.pad_right == 0;
}

QuantizedConvolution::Form QuantizedConvolution::ChooseForm() const {
  const std::string asked = KernelsAskedFor();
  const bool winograd_applies = QuantizedWinograd::Applies(window_, in_channels_, groups_);
  if (asked == "int8") return Form::kInt8Gemm;
  if (asked == "winograd") return winograd_applies ? Form::kWinograd : Form::kInt8Gemm;
  if (asked == "float") return Form::kFloat;
  if (!QuantizedConvolutionComputesInInt8(window_, in_channels_, out_channels_, groups_)) {
    return Form::kFloat;  // on every CPU: see the top of this file
  }
  const Int8Isa isa = BestInt8Isa();
  const bool bytes_multiply_fast = isa == Int8Isa::kAvx512Vnni || isa == Int8Isa::kAmxInt8;
  if (winograd_applies && !bytes_multiply_fast) return Form::kWinograd;  // the GEMM's values
  return Form::kInt8Gemm;
}

void QuantizedConvolution::BuildFloatForm(const QuantizedWeights& weights) {
  ConvolutionSpec spec;
  spec.in_channels = in_channels_;
  spec.out_channels = out_channels_;
  spec.groups = groups_;
  spec.window = window_;
  spec.weights = DequantizeWeightsPerChannel(weights.values, weights.scales);
  if (edges_.bias() != nullptr) spec.bias.assign(edges_.bias(), edges_.bias() + out_channels_);
  Node node;  // names the float convolution in its messages as this layer
  node.type = "lumen.QuantizedConv2d";
  node.name = name();
  float_form_ = std::make_unique<Convolution>(LayerConfig(node), std::move(spec));
}

bool QuantizedConvolution::FuseActivation(const Activation& activation) {
  if (!edges_.FuseActivation(activation)) return false;
  if (float_form_ && !float_form_->FuseActivation(activation)) {
    Fail("the float form took another activation first");  // cannot happen: both start without
  }
  return true;
}

StatePointer QuantizedConvolution::Prepare(const Shapes& input_shapes, const Shapes&,
                                           const PrepareContext& context) const {
  CheckInputCount(input_shapes, 1);
  const ConvolutionShape shape = SampleShape(input_shapes[0]);
  const size_t pixels = static_cast<size_t>(shape.output_h) * shape.output_w;
  if (float_form_) {
    auto state = std::make_unique<QuantizedConvolutionState>(shape, 0, 0);
    state->float_state = float_form_->Prepare(input_shapes, {}, context);
    return state;
  }
  const size_t input_bytes =
      CheckedMultiply(static_cast<size_t>(in_channels_),
                      static_cast<size_t>(shape.input_h) * shape.input_w, "quantised input");
  if (winograd_) {
    auto state = std::make_unique<QuantizedConvolutionState>(shape, input_bytes, 0);
    state->transformed.assign(winograd_->TransformedInputValues(shape, context.threads), 0);
    if (context.workspace != nullptr) {
      for (ScratchSlot slot :
           {ScratchSlot::kGemmPacking, ScratchSlot::kFirst, ScratchSlot::kSecond}) {
        context.workspace->Reserve(slot, winograd_->ScratchFloats(slot, shape));
      }
    }
    return state;
  }
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
  if (float_form_) {
    float_form_->Forward(inputs, outputs, ForwardContext{context.compute, state.float_state.get()});
    return;
  }
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
      QuantizeToUint8(source + first * input_plane, (end - first) * input_plane, edges_.input(),
                      quantized + first * input_plane);
    });
    float* sample_output = output.data() + sample * output_floats;
    if (winograd_) {
      winograd_->Run(shape, window_, quantized, edges_.input(), edges_.bias(), edges_.activation(),
                     state.transformed.empty() ? nullptr : state.transformed.data(), sample_output,
                     context.compute);
      continue;
    }
    for (int group = 0; group < groups_; ++group) {
      const uint8_t* group_input = quantized + group * group_inputs * input_plane;
      const uint8_t* rows = group_input;
      if (!InputIsRows()) {
        QuantizedIm2col(group_input, group_inputs, shape, window_,
                        static_cast<uint8_t>(edges_.input().zero_point), state.rows.data(),
                        context.compute.pool);
        rows = state.rows.data();
      }
      const size_t first_output = static_cast<size_t>(group) * group_outputs;
      Int8Gemm(pixels, rows, pixels, edges_.input(), group_weights_[group],
               edges_.bias(first_output), edges_.activation(),
               sample_output + first_output * pixels, pixels, context.compute);
    }
  }
}

LUMEN_REGISTER_LAYER(QuantizedConvolution, "lumen.QuantizedConv2d");

}  // namespace lumen
