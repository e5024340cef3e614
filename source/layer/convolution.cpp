#include "lumen/layer/convolution.hpp"

#include <glog/logging.h>

#include <climits>
#include <cstdint>
#include <string>

#include "lumen/base/checked_math.hpp"
#include "lumen/base/error.hpp"
#include "lumen/layer/layer_registry.hpp"
#include "lumen/layer/window.hpp"

namespace lumen {

Convolution::Convolution(const LayerConfig& config) : Layer(config) {
  spec_.in_channels = config.IntParam("in_channels");
  spec_.out_channels = config.IntParam("out_channels");
  spec_.groups = config.IntParam("groups", 1);
  const std::string padding_mode = config.StringParam("padding_mode", "zeros");
  if (padding_mode != "zeros") {
    Fail(Concat("padding_mode '", padding_mode, "' is not supported (only 'zeros')"));
  }
  spec_.window = ReadWindow2d(config, false);
  const Window2d& w = spec_.window;
  if (config.HasParam("padding") && config.Param("padding").type() == Parameter::Type::kString &&
      config.Param("padding").AsString() == "same" && (w.stride_h != 1 || w.stride_w != 1)) {
    Fail("padding='same' is not supported for strided convolutions");  // nor in PyTorch
  }
  if (spec_.groups < 1 || spec_.in_channels < 1 || spec_.out_channels < 1 ||
      spec_.in_channels % spec_.groups != 0 || spec_.out_channels % spec_.groups != 0) {
    Fail(Concat("in_channels ", spec_.in_channels, " and out_channels ", spec_.out_channels,
                " must be positive multiples of groups ", spec_.groups));
  }
  // The kernels index one output channel's weights, and the im2col depth, with ints.
  const int64_t taps = int64_t{w.kernel_h} * w.kernel_w;  // < 2^62: no overflow here or below
  if (taps > INT_MAX || taps * (spec_.in_channels / spec_.groups) > INT_MAX) {
    Fail(Concat("the weights of one output channel (", spec_.in_channels / spec_.groups, "x",
                w.kernel_h, "x", w.kernel_w, ") are too many"));
  }
  spec_.weights = config.AttributeFloats(
      "weight", {spec_.out_channels, spec_.in_channels / spec_.groups, w.kernel_h, w.kernel_w});
  if (config.BoolParam("bias", false)) {
    spec_.bias = config.AttributeFloats("bias", {spec_.out_channels});
  }
  // When one algorithm serves every input size, prepare its weights now and drop PyTorch's.
  const std::vector<ConvolutionAlgorithmKind> candidates = CandidateConvolutionAlgorithms(spec_);
  if (candidates.size() == 1) {
    algorithms_[static_cast<size_t>(candidates[0])] =
        MakeConvolutionAlgorithm(candidates[0], spec_);
    std::vector<float>().swap(spec_.weights);
  }
}

ConvolutionShape Convolution::SampleShape(const Shape& input) const {
  const size_t rank = input.size();
  if ((rank != 3 && rank != 4) || input[rank - 3] != static_cast<uint32_t>(spec_.in_channels)) {
    Fail(Concat("expected an input of shape (N,", spec_.in_channels, ",H,W) or (",
                spec_.in_channels, ",H,W), got ", ShapeToString(input)));
  }
  const uint32_t input_h = input[rank - 2];
  const uint32_t input_w = input[rank - 1];
  if (input_h == 0 || input_w == 0) {
    Fail(Concat("the input ", ShapeToString(input), " has an empty plane"));
  }
  ConvolutionShape shape;
  try {
    shape = MakeConvolutionShape(spec_.window, CheckedInt(input_h, "convolution input height"),
                                 CheckedInt(input_w, "convolution input width"));
  } catch (const Error& error) {
    Fail(Concat("input ", ShapeToString(input), ": ", error.what()));
  }
  if (shape.output_h < 1 || shape.output_w < 1) {
    const Window2d& w = spec_.window;
    Fail(Concat("the ", w.kernel_h, "x", w.kernel_w, " kernel (dilation ", w.dilation_h, "x",
                w.dilation_w, ") does not fit in the input ", ShapeToString(input), " padded to ",
                int64_t{input_h} + w.pad_top + w.pad_bottom, "x",
                int64_t{input_w} + w.pad_left + w.pad_right));
  }
  return shape;
}

std::vector<Shape> Convolution::OutputShapes(const std::vector<Shape>& input_shapes) const {
  CheckInputCount(input_shapes, 1);
  const ConvolutionShape shape = SampleShape(input_shapes[0]);
  Shape output = input_shapes[0];
  const size_t rank = output.size();
  output[rank - 3] = static_cast<uint32_t>(spec_.out_channels);
  output[rank - 2] = static_cast<uint32_t>(shape.output_h);
  output[rank - 1] = static_cast<uint32_t>(shape.output_w);
  return {output};
}

const ConvolutionAlgorithm& Convolution::PreparedAlgorithm(ConvolutionAlgorithmKind kind) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::unique_ptr<const ConvolutionAlgorithm>& algorithm = algorithms_[static_cast<size_t>(kind)];
  if (!algorithm) {
    // Weights are released only when the one candidate was built in the constructor.
    CHECK(!spec_.weights.empty()) << description() << ": no weights left to build "
                                  << ConvolutionAlgorithmName(kind);
    algorithm = MakeConvolutionAlgorithm(kind, spec_);
  }
  return *algorithm;
}

std::unique_ptr<LayerState> Convolution::Prepare(const std::vector<Shape>& input_shapes,
                                                 const std::vector<Shape>& /*output_shapes*/,
                                                 const PrepareContext& context) const {
  CheckInputCount(input_shapes, 1);
  const ConvolutionShape shape = SampleShape(input_shapes[0]);
  const ConvolutionAlgorithm& algorithm =
      PreparedAlgorithm(ChooseConvolutionAlgorithm(spec_, shape));
  auto state = std::make_unique<ConvolutionState>(
      &algorithm, algorithm.Plan(shape, activation_, context.threads));
  if (context.workspace != nullptr) state->plan().ReserveScratch(context.workspace);
  return state;
}

void Convolution::Forward(const std::vector<const Tensor*>& inputs,
                          const std::vector<Tensor*>& outputs,
                          const ForwardContext& context) const {
  const ConvolutionState& state = context.state_as<ConvolutionState>();
  const ConvolutionShape& shape = state.plan().shape;
  const Tensor& input = *inputs[0];
  Tensor& output = *outputs[0];
  // Sample n's channels are slices n*C .. n*C + C-1 of the tensors, one after another.
  const size_t samples = input.rank() == 4 ? input.shape()[0] : 1;
  const size_t input_floats =
      static_cast<size_t>(spec_.in_channels) * shape.input_h * shape.input_w;
  const size_t output_floats =
      static_cast<size_t>(spec_.out_channels) * shape.output_h * shape.output_w;
  for (size_t sample = 0; sample < samples; ++sample) {
    state.algorithm().Run(state.plan(), input.data() + sample * input_floats,
                          output.data() + sample * output_floats, context.compute);
  }
}

bool Convolution::FuseActivation(const Activation& activation) {
  if (activation_fused_) return false;
  activation_ = activation;
  activation_fused_ = true;
  return true;
}

LUMEN_REGISTER_LAYER(Convolution, "nn.Conv2d");

}  // namespace lumen
