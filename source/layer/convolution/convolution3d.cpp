// nn.Conv3d and F.conv3d: 3-D convolution with stride, padding (zeros, reflect, replicate or
// circular; 'same' and 'valid'), dilation, groups and bias, for video and volumetric models
// (torchvision's r3d_18). The arithmetic is kernel/convolution_volume.hpp's vol2col + GEMM.
//
// F.conv1d and F.conv2d, whose weights are operands, run here too, as a 3-D convolution whose
// leading axes have extent 1: nn.Conv1d/2d keep their packed weights and specialised algorithms
// in convolution.cpp, while a weight that may change at every run is packed at every run anyway,
// which vol2col does for any number of axes.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/checked_math.hpp"
#include "kernel/convolution_volume.hpp"
#include "kernel/padding.hpp"
#include "layer/convolution/convolution_axes.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "math/padding.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// One layer for the four spellings: nn.Conv3d keeps its weights, packed once; F.conv1d/2d/3d read
// them (and the bias) from their operands, so they pack them at every Forward.
class Convolution3d : public Layer {
 public:
  // Reads the window, padding mode, groups and (nn.Conv3d) channels and weights.
  explicit Convolution3d(const LayerConfig& config);
  // (N, C_in, D, H, W) or (C_in, D, H, W) -> the same with C_out and the extents the window gives
  // (F.conv2d: (N, C_in, H, W) or (C_in, H, W); F.conv1d: (N, C_in, L) or (C_in, L)).
  Shapes OutputShapes(const Shapes&) const override;
  // Plans the GEMM blocks and the staging of a padded input.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Convolves each sample.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;

 private:
  struct State;

  // The spec for these input shapes (none: nn.Conv3d's own), weights left out, and without the
  // padding a padding mode stages: F.conv*d takes its channels and kernel from the weight
  // operand's shape. Throws lumen::Error naming the layer on inconsistent shapes.
  VolumeConvolutionSpec SpecFor(const std::vector<Shape>& input_shapes) const;
  // The input read as (samples, C_in, D, H, W), with its storage strides (0 along the axes it
  // lacks); throws lumen::Error naming the layer when its rank or channels are wrong or it is
  // empty.
  VolumeView ReadVolume(const VolumeConvolutionSpec& spec, const Shape& input) const;
  // The sample's extents as the kernel sees them (after padding_mode's padding).
  VolumeShape SampleShape(const VolumeConvolutionSpec& spec, const Shape& input) const;
  // The padding a padding mode other than zeros stages on each axis of `volume` (the shape of a
  // Volume): none on the samples and channels.
  std::vector<AxisPadding> StagedPadding(const Shape& volume) const;
  // padding='same': sets the window's padding from its kernel and dilation.
  void ApplySamePadding(VolumeConvolutionSpec* spec) const;

  // Whether the input needs staging: padded by a padding mode, or a 1-D input whose channels are
  // innermost in memory (tensor.hpp) turned into one row per channel.
  bool StagesInput() const { return padding_mode_ != PaddingMode::kConstant || spatial_rank_ == 1; }

  int spatial_rank_ = 3;     // the axes after the channels: 1, 2 or 3
  bool functional_ = false;  // F.conv*d: weight and bias are operands
  bool has_bias_input_ = false;
  bool same_padding_ = false;
  // The geometry; for nn.Conv3d the channels too (weights are in `convolution_`).
  VolumeConvolutionSpec spec_;
  PaddingMode padding_mode_ = PaddingMode::kConstant;
  std::unique_ptr<const VolumeConvolution> convolution_;  // nn.Conv3d only
};

// Per session: the block plan, the staged input and, for a 1-D input, the staged output.
struct Convolution3d::State : public LayerState {
  VolumeConvolutionPlan plan;
  int in_channels = 0, out_channels = 0;
  PaddingPlan staging;
  std::vector<float> staged_input;  // empty when the input is read as it is
  // F.conv1d: the output as the kernel writes it (a row of L' per channel), and the copy that
  // puts it in the output tensor's layout (channels innermost).
  std::vector<float> staged_output;
  StridedCopy output_copy;
  size_t bytes() const override {
    return (staged_input.size() + staged_output.size()) * sizeof(float) + staging.bytes();
  }
};

Convolution3d::Convolution3d(const LayerConfig& config) : Layer(config) {
  const std::string& type = config.type();
  functional_ = type.rfind("F.", 0) == 0;
  spatial_rank_ = SpatialRankOf(type);
  ConvolutionSpec& plane = spec_.plane;
  plane.groups = config.IntParam("groups", 1);
  padding_mode_ = ReadPaddingMode(config);
  const std::array<int, 3> kernel = ReadAxes(config, "kernel_size", spatial_rank_, 1, 1);
  const std::array<int, 3> stride = ReadAxes(config, "stride", spatial_rank_, 1, 1);
  const std::array<int, 3> dilation = ReadAxes(config, "dilation", spatial_rank_, 1, 1);
  for (int axis = 0; axis < 3; ++axis) {
    if (stride[axis] < 1 || dilation[axis] < 1 || (!functional_ && kernel[axis] < 1)) {
      Fail("kernel_size, stride and dilation must be positive");
    }
  }
  spec_.depth.stride = stride[0];
  spec_.depth.dilation = dilation[0];
  plane.window.stride_h = stride[1];
  plane.window.stride_w = stride[2];
  plane.window.dilation_h = dilation[1];
  plane.window.dilation_w = dilation[2];
  if (config.HasParam("padding") && config.Param("padding").type() == Parameter::Type::kString) {
    const std::string padding = config.Param("padding").AsString();
    if (padding == "same") {
      if (stride[0] != 1 || stride[1] != 1 || stride[2] != 1) {
        Fail("padding='same' is not supported for strided convolutions");  // nor in PyTorch
      }
      same_padding_ = true;  // amounts depend on the kernel, known from the weight for F.conv3d
    } else if (padding != "valid") {
      Fail(Concat("unknown padding '", padding, "' (expected same, valid or ints)"));
    }
  } else {
    const std::array<int, 3> padding = ReadAxes(config, "padding", spatial_rank_, 0, 0);
    if (padding[0] < 0 || padding[1] < 0 || padding[2] < 0) Fail("negative padding");
    spec_.depth.pad_before = spec_.depth.pad_after = padding[0];
    plane.window.pad_top = plane.window.pad_bottom = padding[1];
    plane.window.pad_left = plane.window.pad_right = padding[2];
  }
  if (functional_) {
    if (config.input_count() != 2 && config.input_count() != 3) {
      Fail(Concat("expected 2 or 3 inputs (input, weight, bias), got ", config.input_count()));
    }
    has_bias_input_ = config.input_count() == 3;
    return;
  }
  plane.in_channels = config.IntParam("in_channels");
  plane.out_channels = config.IntParam("out_channels");
  spec_.depth.kernel = kernel[0];
  plane.window.kernel_h = kernel[1];
  plane.window.kernel_w = kernel[2];
  if (plane.groups < 1 || plane.in_channels < 1 || plane.out_channels < 1 ||
      plane.in_channels % plane.groups != 0 || plane.out_channels % plane.groups != 0) {
    Fail(Concat("in_channels ", plane.in_channels, " and out_channels ", plane.out_channels,
                " must be positive multiples of groups ", plane.groups));
  }
  ApplySamePadding(&spec_);
  VolumeConvolutionSpec weighted = SpecFor({});
  weighted.plane.weights = config.AttributeFloats(
      "weight",
      {plane.out_channels, plane.in_channels / plane.groups, kernel[0], kernel[1], kernel[2]});
  if (config.BoolParam("bias", false)) {
    weighted.plane.bias = config.AttributeFloats("bias", {plane.out_channels});
  }
  convolution_ = std::make_unique<VolumeConvolution>(weighted);
}

void Convolution3d::ApplySamePadding(VolumeConvolutionSpec* spec) const {
  if (!same_padding_) return;
  // PyTorch puts the odd extra element after (at the back, bottom, right).
  const auto split = [](int64_t total, int* before, int* after) {
    *before = static_cast<int>(total / 2);
    *after = static_cast<int>(total - total / 2);
  };
  Window2d& w = spec->plane.window;
  split(int64_t{spec->depth.dilation} * (spec->depth.kernel - 1), &spec->depth.pad_before,
        &spec->depth.pad_after);
  split(int64_t{w.dilation_h} * (w.kernel_h - 1), &w.pad_top, &w.pad_bottom);
  split(int64_t{w.dilation_w} * (w.kernel_w - 1), &w.pad_left, &w.pad_right);
}

VolumeConvolutionSpec Convolution3d::SpecFor(const std::vector<Shape>& input_shapes) const {
  VolumeConvolutionSpec spec = spec_;
  if (functional_) {
    CheckInputCount(input_shapes, has_bias_input_ ? 3 : 2);
    const Shape& weight = input_shapes[1];
    const size_t rank = static_cast<size_t>(spatial_rank_) + 2;
    bool valid = weight.size() == rank && weight[0] % spec.plane.groups == 0;
    for (size_t d = 0; valid && d < rank; ++d) valid = weight[d] > 0;
    if (!valid) {
      const char* kernel = spatial_rank_ == 1 ? "k" : spatial_rank_ == 2 ? "kH, kW" : "kD, kH, kW";
      Fail(Concat("expected a weight of shape (C_out, C_in/groups, ", kernel,
                  ") with C_out a multiple of groups ", spec.plane.groups, ", got ",
                  ShapeToString(weight)));
    }
    spec.plane.out_channels = CheckedInt(weight[0], "out channels");
    spec.plane.in_channels = CheckedInt(int64_t{weight[1]} * spec.plane.groups, "in channels");
    // The kernel extents, (depth, height, width) with 1 for the missing leading axes.
    int kernel[3] = {1, 1, 1};
    for (int axis = 0; axis < spatial_rank_; ++axis) {
      kernel[3 - spatial_rank_ + axis] = CheckedInt(weight[2 + axis], "kernel size");
    }
    spec.depth.kernel = kernel[0];
    spec.plane.window.kernel_h = kernel[1];
    spec.plane.window.kernel_w = kernel[2];
    if (has_bias_input_ && input_shapes[2] != Shape{weight[0]}) {
      Fail(Concat("expected a bias of shape (", weight[0], "), got ",
                  ShapeToString(input_shapes[2])));
    }
    ApplySamePadding(&spec);
  } else if (!input_shapes.empty()) {
    CheckInputCount(input_shapes, 1);
  }
  if (padding_mode_ != PaddingMode::kConstant) {
    // PyTorch pads with F.pad in this mode, then convolves without padding: so does Lumen.
    spec.depth.pad_before = spec.depth.pad_after = 0;
    Window2d& w = spec.plane.window;
    w.pad_top = w.pad_bottom = w.pad_left = w.pad_right = 0;
  }
  return spec;
}

VolumeView Convolution3d::ReadVolume(const VolumeConvolutionSpec& spec, const Shape& input) const {
  const size_t rank = input.size();
  const size_t spatial = static_cast<size_t>(spatial_rank_);
  const char* axes = spatial_rank_ == 1 ? "L" : spatial_rank_ == 2 ? "H,W" : "D,H,W";
  if ((rank != spatial + 1 && rank != spatial + 2) ||
      input[rank - spatial - 1] != static_cast<uint32_t>(spec.plane.in_channels)) {
    Fail(Concat("expected an input of shape (N,", spec.plane.in_channels, ",", axes, ") or (",
                spec.plane.in_channels, ",", axes, "), got ", ShapeToString(input)));
  }
  for (size_t axis = rank - spatial; axis < rank; ++axis) {
    if (input[axis] == 0) Fail(Concat("the input ", ShapeToString(input), " has an empty ", axes));
  }
  return ViewAsVolume(input, spatial_rank_);
}

std::vector<AxisPadding> Convolution3d::StagedPadding(const Shape& volume) const {
  std::vector<AxisPadding> padding(5);
  for (size_t axis = 0; axis < 5; ++axis) padding[axis].extent = volume[axis];
  if (padding_mode_ == PaddingMode::kConstant) return padding;
  const WindowAxis& d = spec_.depth;
  const Window2d& w = spec_.plane.window;
  padding[2] = {volume[2], d.pad_before, d.pad_after};
  padding[3] = {volume[3], w.pad_top, w.pad_bottom};
  padding[4] = {volume[4], w.pad_left, w.pad_right};
  return padding;
}

VolumeShape Convolution3d::SampleShape(const VolumeConvolutionSpec& spec,
                                       const Shape& input) const {
  const Shape volume = ReadVolume(spec, input).shape;
  int64_t extents[3] = {volume[2], volume[3], volume[4]};
  if (padding_mode_ != PaddingMode::kConstant) {
    const std::vector<AxisPadding> padding = StagedPadding(volume);
    for (int axis = 0; axis < 3; ++axis) {
      const AxisPadding& pad = padding[2 + axis];
      if (const char* problem = PaddingProblem(padding_mode_, pad)) {
        Fail(Concat("padding_mode ", PaddingModeName(padding_mode_), " cannot pad the input ",
                    ShapeToString(input), " by ", pad.before, ": ", problem));
      }
      extents[axis] = pad.PaddedExtent();
    }
  }
  VolumeShape shape;
  try {
    shape = MakeVolumeShape(spec, CheckedInt(extents[0], "convolution input depth"),
                            CheckedInt(extents[1], "convolution input height"),
                            CheckedInt(extents[2], "convolution input width"));
  } catch (const Error& error) {
    Fail(Concat("input ", ShapeToString(input), ": ", error.what()));
  }
  if (shape.output_d < 1 || shape.output_h < 1 || shape.output_w < 1) {
    Fail(Concat("the kernel (", spec.depth.kernel, "x", spec.plane.window.kernel_h, "x",
                spec.plane.window.kernel_w,
                " as depth x height x width) does not fit in the input ", ShapeToString(input),
                " with its padding and dilation"));
  }
  return shape;
}

Shapes Convolution3d::OutputShapes(const Shapes& input_shapes) const {
  const VolumeConvolutionSpec spec = SpecFor(input_shapes);
  const VolumeShape shape = SampleShape(spec, input_shapes[0]);
  return {VolumeOutputShape(input_shapes[0], spatial_rank_, spec.plane.out_channels,
                            {shape.output_d, shape.output_h, shape.output_w})};
}

StatePointer Convolution3d::Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                                    const PrepareContext& context) const {
  const VolumeConvolutionSpec spec = SpecFor(input_shapes);
  const Shape& input = input_shapes[0];
  auto state = std::make_unique<State>();
  const VolumeShape shape = SampleShape(spec, input);
  state->in_channels = spec.plane.in_channels;
  state->out_channels = spec.plane.out_channels;
  state->plan = PlanVolumeConvolution(spec, shape);
  if (context.workspace != nullptr) state->plan.ReserveScratch(context.workspace);
  const VolumeView volume = ReadVolume(spec, input);
  if (StagesInput()) {
    try {
      state->staging =
          MakePaddingPlan(padding_mode_, volume.shape, volume.strides, StagedPadding(volume.shape));
    } catch (const Error& error) {
      Fail(Concat("input ", ShapeToString(input), ": ", error.what()));
    }
    state->staged_input.resize(ShapeElementCount(state->staging.output));
  }
  if (spatial_rank_ == 1) {
    // The kernel writes (samples, C_out, L') with L' fastest; the output tensor of shape
    // (N, C_out, L') keeps its channels fastest (tensor.hpp).
    const Shape& output = output_shapes[0];
    state->output_copy = RowsToChannelsInnermost(output);
    state->staged_output.resize(ShapeElementCount(output));
  }
  return state;
}

void Convolution3d::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                            const ForwardContext& context) const {
  State& state = context.state_as<State>();
  const VolumeShape& shape = state.plan.shape;
  const Tensor& input = *inputs[0];
  const float* source = input.data();
  if (!state.staged_input.empty()) {
    Pad(state.staging, input.data(), 0.0f, state.staged_input.data(), context.compute.pool);
    source = state.staged_input.data();
  }
  std::unique_ptr<const VolumeConvolution> operand_convolution;
  if (functional_) {
    // The weights may change from run to run: pack this run's.
    std::vector<Shape> shapes;
    for (const Tensor* operand : inputs) shapes.push_back(operand->shape());
    VolumeConvolutionSpec spec = SpecFor(shapes);
    spec.plane.weights = inputs[1]->ToRowMajor();
    if (has_bias_input_) spec.plane.bias = inputs[2]->ToRowMajor();
    operand_convolution = std::make_unique<VolumeConvolution>(spec);
  }
  const VolumeConvolution& convolution = functional_ ? *operand_convolution : *convolution_;
  float* target = spatial_rank_ == 1 ? state.staged_output.data() : outputs[0]->data();
  const size_t input_floats =
      static_cast<size_t>(state.in_channels) * shape.input_d * shape.input_h * shape.input_w;
  const size_t output_floats =
      static_cast<size_t>(state.out_channels) * shape.output_d * shape.output_h * shape.output_w;
  const size_t samples =
      input.rank() == static_cast<size_t>(spatial_rank_) + 2 ? input.shape()[0] : 1;
  for (size_t sample = 0; sample < samples; ++sample) {
    convolution.Run(state.plan, source + sample * input_floats, target + sample * output_floats,
                    context.compute);
  }
  if (spatial_rank_ == 1) {
    RunStridedCopy(state.output_copy, state.staged_output.data(), outputs[0]->data(),
                   context.compute.pool);
  }
}

LUMEN_REGISTER_LAYER(Convolution3d, "nn.Conv3d", "F.conv3d", "F.conv2d", "F.conv1d");

}  // namespace lumen
