#include "layer/convolution/convolution.hpp"

#include <glog/logging.h>

#include <climits>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/checked_math.hpp"
#include "kernel/quantized_winograd.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "math/bf16_gemm.hpp"
#include "math/int8_gemm.hpp"

namespace lumen {

Convolution::Convolution(const LayerConfig& config) : ConvolutionLayer(config) {
  // The algorithms' copy of the geometry.
  spec_.in_channels = in_channels_;
  spec_.out_channels = out_channels_;
  spec_.groups = groups_;
  spec_.window = window_;
  const Window2d& w = spec_.window;
  // The kernels index one output channel's weights, and the im2col depth, with ints.
  const int64_t taps = int64_t{w.kernel_h} * w.kernel_w;  // < 2^62: no overflow here or below
  if (taps > INT_MAX || taps * (spec_.in_channels / spec_.groups) > INT_MAX) {
    Fail(Concat("the weights of one output channel (", spec_.in_channels / spec_.groups, "x",
                w.kernel_h, "x", w.kernel_w, ") are too many"));
  }
  // A 1-D kernel (out, in/groups, k) has the memory of the 2-D (out, in/groups, 1, k).
  spec_.weights = config.AttributeFloats(
      "weight",
      one_dimensional_
          ? std::vector<int>{spec_.out_channels, spec_.in_channels / spec_.groups, w.kernel_w}
          : std::vector<int>{spec_.out_channels, spec_.in_channels / spec_.groups, w.kernel_h,
                             w.kernel_w});
  if (config.BoolParam("bias", false)) {
    spec_.bias = config.AttributeFloats("bias", {spec_.out_channels});
  }
  // A `--to bf16` file's weights: multiplied in bf16 where the CPU does that faster than fp32, but
  // in the narrow layers (see kBf16LeastDepth), which lumen.QuantizedConv2d keeps in float too;
  // elsewhere they were widened to fp32 above, exactly, and run as any other layer.
  const int64_t depth = int64_t{spec_.in_channels / spec_.groups} * w.kernel_h * w.kernel_w;
  spec_.bf16_products = config.GetAttribute("weight").type == DataType::kBFloat16 &&
                        Bf16ProductsWanted() && depth >= kBf16LeastDepth &&
                        spec_.out_channels / spec_.groups >= kBf16LeastOutputs;
  BuildTheOnlyAlgorithm();
}

Convolution::Convolution(const LayerConfig& config, ConvolutionSpec spec)
    : ConvolutionLayer(config, spec.in_channels, spec.out_channels, spec.groups, spec.window),
      spec_(std::move(spec)) {
  BuildTheOnlyAlgorithm();
}

void Convolution::BuildTheOnlyAlgorithm() {
  const std::vector<ConvolutionAlgorithmKind> candidates = CandidateConvolutionAlgorithms(spec_);
  if (candidates.size() == 1) {
    algorithms_[static_cast<size_t>(candidates[0])] =
        MakeConvolutionAlgorithm(candidates[0], spec_);
    std::vector<float>().swap(spec_.weights);
  }
}

PaddingPlan Convolution::StagingPlan(const Shape& input) const {
  const size_t rank = input.size();
  const std::vector<std::ptrdiff_t> strides = SignedStorageStrides(input);
  // The input as (samples, channels, H, W), read with its own strides (a missing batch has
  // stride 0). A 1-D input is (samples, channels, L, 1): the memory of (samples, channels, 1, L)
  // (one row of L per channel, as the algorithm reads it) with L as the fastest dimension, so the
  // staging copies whole rows.
  Shape index_shape;
  std::vector<std::ptrdiff_t> index_strides;
  const bool batched = rank == (one_dimensional_ ? 3u : 4u);
  index_shape.push_back(batched ? input[0] : 1);
  index_strides.push_back(batched ? strides[0] : 0);
  std::vector<AxisPadding> padding(4);
  if (one_dimensional_) {
    index_shape.insert(index_shape.end(), {input[rank - 2], input[rank - 1], 1});
    index_strides.insert(index_strides.end(), {strides[rank - 2], strides[rank - 1], 0});
    if (padding_mode_ != PaddingMode::kConstant) {
      padding[2].before = padding_.pad_left;
      padding[2].after = padding_.pad_right;
    }
  } else {
    index_shape.insert(index_shape.end(), {input[rank - 3], input[rank - 2], input[rank - 1]});
    index_strides.insert(index_strides.end(),
                         {strides[rank - 3], strides[rank - 2], strides[rank - 1]});
    if (padding_mode_ != PaddingMode::kConstant) {
      padding[2].before = padding_.pad_top;
      padding[2].after = padding_.pad_bottom;
      padding[3].before = padding_.pad_left;
      padding[3].after = padding_.pad_right;
    }
  }
  try {
    return MakePaddingPlan(padding_mode_, index_shape, index_strides, padding);
  } catch (const Error& error) {
    Fail(Concat("input ", ShapeToString(input), ": ", error.what()));
  }
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

StatePointer Convolution::Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                                  const PrepareContext& context) const {
  CheckInputCount(input_shapes, 1);
  const Shape& input = input_shapes[0];
  const ConvolutionShape shape = SampleShape(input);
  const ConvolutionAlgorithm& algorithm =
      PreparedAlgorithm(ChooseConvolutionAlgorithm(spec_, shape));
  auto state = std::make_unique<ConvolutionState>(
      &algorithm, algorithm.Plan(shape, activation_, context.threads));
  if (context.workspace != nullptr) state->plan().ReserveScratch(context.workspace);
  if (one_dimensional_ || padding_mode_ != PaddingMode::kConstant) {
    state->staging = StagingPlan(input);
    state->staged_input.resize(ShapeElementCount(state->staging.output));
  }
  if (one_dimensional_) {
    // The algorithm writes (samples, out_channels, L') with L' fastest; the output tensor of
    // shape (N, out_channels, L') keeps its channels fastest (tensor.hpp).
    const Shape& output = output_shapes[0];
    const size_t rank = output.size();
    const std::vector<std::ptrdiff_t> strides = SignedStorageStrides(output);
    const size_t samples = state->staging.output[0];
    const auto width = static_cast<std::ptrdiff_t>(shape.output_w);
    StridedCopy copy;
    copy.extents = {samples, static_cast<size_t>(spec_.out_channels),
                    static_cast<size_t>(shape.output_w)};
    copy.source_strides = {spec_.out_channels * width, width, 1};
    copy.target_strides = {rank == 3 ? strides[0] : 0, strides[rank - 2], strides[rank - 1]};
    state->output_copy = MakeStridedCopy(copy);
    state->staged_output.resize(
        CheckedMultiply(samples,
                        ShapeElementCount({static_cast<uint32_t>(spec_.out_channels),
                                           static_cast<uint32_t>(shape.output_w)}),
                        "convolution output"));
  }
  return state;
}

void Convolution::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                          const ForwardContext& context) const {
  ConvolutionState& state = context.state_as<ConvolutionState>();
  const ConvolutionShape& shape = state.plan().shape;
  const Tensor& input = *inputs[0];
  Tensor& output = *outputs[0];
  const float* source = input.data();
  if (!state.staged_input.empty()) {
    Pad(state.staging, input.data(), 0.0f, state.staged_input.data(), context.compute.pool);
    source = state.staged_input.data();
  }
  float* target = one_dimensional_ ? state.staged_output.data() : output.data();
  // Sample n's channels are slices n*C .. n*C + C-1 of the tensors, one after another.
  const size_t batched_rank = one_dimensional_ ? 3 : 4;
  const size_t samples = input.rank() == batched_rank ? input.shape()[0] : 1;
  const size_t input_floats =
      static_cast<size_t>(spec_.in_channels) * shape.input_h * shape.input_w;
  const size_t output_floats =
      static_cast<size_t>(spec_.out_channels) * shape.output_h * shape.output_w;
  for (size_t sample = 0; sample < samples; ++sample) {
    state.algorithm().Run(state.plan(), source + sample * input_floats,
                          target + sample * output_floats, context.compute);
  }
  if (one_dimensional_) {
    RunStridedCopy(state.output_copy, state.staged_output.data(), output.data(),
                   context.compute.pool);
  }
}

bool QuantizedConvolutionComputesInInt8(const Window2d& window, int in_channels, int out_channels,
                                        int groups) {
  // The thresholds measured for the int8 GEMM's passes (quantised_convolution.cpp's top).
  constexpr int64_t kLeastDepth = 32;
  constexpr int kLeastOutputs = 32;
  if (QuantizedWinograd::Applies(window, in_channels, groups)) return true;
  const int64_t depth = int64_t{in_channels / groups} * window.kernel_h * window.kernel_w;
  return depth >= kLeastDepth && out_channels / groups >= kLeastOutputs;
}

std::string Convolution::QuantizedType() const {
  const int64_t depth = int64_t{in_channels_} * window_.kernel_h * window_.kernel_w;
  if (one_dimensional_ || groups_ != 1 || padding_mode_ != PaddingMode::kConstant ||
      depth > kInt8GemmMaxDepth ||
      !QuantizedConvolutionComputesInInt8(window_, in_channels_, out_channels_, groups_)) {
    return "";
  }
  return "lumen.QuantizedConv2d";
}

bool Convolution::FuseActivation(const Activation& activation) {
  if (activation_fused_) return false;
  activation_ = activation;
  activation_fused_ = true;
  return true;
}

LUMEN_REGISTER_LAYER(Convolution, "nn.Conv2d", "nn.Conv1d");

}  // namespace lumen
