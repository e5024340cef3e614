// nn.Linear: y = x W^T + b over the last dimension.
#include <algorithm>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "base/thread_pool.hpp"
#include "layer/convolution/convolution.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "math/activation.hpp"
#include "math/bf16_gemm.hpp"
#include "math/int8_gemm.hpp"
#include "math/matrix_vector.hpp"
#include "math/packed_gemm.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// A fully connected layer applied to the last dimension of an input of any rank:
// (..., in_features) -> (..., out_features).
//
// Each fcube slice of the input is a column-major (rows x in_features) matrix X; PyTorch's
// row-major (out, in) weight buffer, read column-major, is W^T as an (in x out) matrix; so
// Y = X * W^T is one GEMM per slice with no transposes, or dot products when a slice is a single
// row (a classifier's head). Slices of few rows (a channels-last feature map: ConvNeXt's
// (1, 24, 24, 32) is 24 slices of 24 rows) are stacked into one taller GEMM, whose row panels are
// full, instead of many GEMMs that each end in a partly empty panel.
//
// A `--to bf16` file's weights multiply in bf16 where the CPU does that faster (math/bf16_gemm;
// not for narrow layers, see kBf16LeastDepth): slices stacked as above, else one bf16 GEMM per
// slice, or a bf16 matrix-vector product per single-row slice. Elsewhere they are widened to fp32
// once and run as above.
class Linear : public Layer {
 public:
  // Reads in_features, out_features, bias and the weights, and packs the weights once.
  explicit Linear(const LayerConfig& config);
  // The input's shape with its last dimension in_features replaced by out_features.
  Shapes OutputShapes(const Shapes&) const override;
  // Reserves the GEMM's packing scratch for these shapes.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Multiplies every slice, then adds the bias and applies the fused activation.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;
  // Applies `activation` after the bias, while the output is still in cache.
  bool FuseActivation(const Activation& activation) override;
  // Takes a bias of out_features values when it has none and no activation yet.
  bool FuseBias(const std::vector<float>& bias) override;
  // Per pixel of a channels-last map, x W^T + b is a 1x1 nn.Conv2d on the channels-first map,
  // with the same weights: PyTorch's (out, in) buffer is the (out, in, 1, 1) kernel.
  std::unique_ptr<Layer> ChannelsFirstForm() const override;
  // lumen.QuantizedLinear, for any Linear whose input row fits the int8 GEMM's depth.
  std::string QuantizedType() const override {
    return in_features_ <= kInt8GemmMaxDepth ? "lumen.QuantizedLinear" : "";
  }

 private:
  // Adds the bias to output features [first, end) of a column-major (rows x out) slice and
  // applies the activation.
  void FinishFeatures(float* result, int rows, int first, int end) const;
  // Y = X W^T + b for slices of few rows: gathers groups of slices into one column-major matrix,
  // multiplies it in one GEMM, and scatters the result back with the bias and activation.
  void ForwardStacked(const Tensor& input, Tensor& output, const ComputeContext& compute) const;
  // Y = f(X W^T + b) with the bf16 weights: stacked as ForwardStacked does, else slice by slice.
  void ForwardBf16(const Tensor& input, Tensor& output, const ComputeContext& compute) const;
  // Y = X W^T for `rows` rows of the column-major X (leading dimension rows) into Y (the same),
  // without bias or activation: the fp32 packed GEMM, or the bf16 one for bf16 products.
  void MultiplyRows(int rows, const float* x, float* y, const ComputeContext& compute) const;

  int in_features_ = 0;
  int out_features_ = 0;
  std::vector<float> weights_;      // (out, in) row-major: one row per output feature
  PackedMatrix packed_weights_;     // the same as the (in x out) right-hand side, packed
  Bf16PackedWeights bf16_weights_;  // instead of packed_weights_ for bf16 products
  std::vector<float> bias_;         // empty without bias
  Activation activation_;           // identity unless a following activation was fused
};

namespace {

// Output features per task of the matrix-vector products.
constexpr int kFeatureBlock = 64;
// Below this many multiply-adds a matrix-vector product runs on one thread.
constexpr size_t kParallelProducts = 1 << 15;
// Slices of fewer rows than this are multiplied several at a time (see Linear::ForwardStacked).
constexpr int kStackBelowRows = 128;
// Slices of one row (a sequence-first (L, 1, E) operand) are stacked from this many on: one GEMM
// reads the weights once, where a matrix-vector product per slice reads them again each time.
constexpr std::ptrdiff_t kStackVectorsFrom = 32;
// Scratch a stacked GEMM may use for its gathered input and its output (1 MB, in floats): as many
// slices as fit, so that most layers need one GEMM (one pass of each parallel loop), and at least
// kStackedRowsAtLeast rows, which keep the GEMM near its peak.
constexpr std::ptrdiff_t kStackScratchFloats = 1 << 18;
constexpr std::ptrdiff_t kStackedRowsAtLeast = 256;

// How ForwardStacked groups the slices: `groups` GEMMs of up to `slices_per_group` slices each.
struct StackPlan {
  int slices_per_group = 0;
  int groups = 0;
};

// Whether slices of `rows` rows (of `features` inputs and outputs together) are multiplied
// together, and how many at a time.
StackPlan PlanStacks(std::ptrdiff_t slices, int rows, int features) {
  StackPlan plan;
  if (slices < 2 || rows >= kStackBelowRows || (rows == 1 && slices < kStackVectorsFrom)) {
    return plan;
  }
  const std::ptrdiff_t total_rows = slices * rows;
  const std::ptrdiff_t group_rows = std::max(kStackedRowsAtLeast, kStackScratchFloats / features);
  plan.groups = static_cast<int>((total_rows + group_rows - 1) / group_rows);
  plan.slices_per_group = static_cast<int>((slices + plan.groups - 1) / plan.groups);
  plan.groups = static_cast<int>((slices + plan.slices_per_group - 1) / plan.slices_per_group);
  return plan;
}

}  // namespace

Linear::Linear(const LayerConfig& config)
    : Layer(config),
      in_features_(config.IntParam("in_features")),
      out_features_(config.IntParam("out_features")) {
  if (in_features_ < 1 || out_features_ < 1) Fail("in_features and out_features must be positive");
  weights_ = config.AttributeFloats("weight", {out_features_, in_features_});
  if (config.GetAttribute("weight").type == DataType::kBFloat16 && Bf16ProductsWanted() &&
      in_features_ >= kBf16LeastDepth && out_features_ >= kBf16LeastOutputs) {
    bf16_weights_ = Bf16PackedWeights(weights_.data(), out_features_, in_features_, in_features_);
  } else {
    // PyTorch's (out, in) buffer read column-major is W^T, the (in x out) right-hand side.
    packed_weights_ = PackedMatrix(weights_.data(), in_features_, out_features_, in_features_);
  }
  if (config.BoolParam("bias", false)) bias_ = config.AttributeFloats("bias", {out_features_});
}

Shapes Linear::OutputShapes(const Shapes& input_shapes) const {
  return LastDimensionMapped(input_shapes, in_features_, out_features_);
}

StatePointer Linear::Prepare(const Shapes& input_shapes, const Shapes& /*output_shapes*/,
                             const PrepareContext& context) const {
  const Shape& input = input_shapes[0];
  const int rows = input.size() >= 2 ? static_cast<int>(input[input.size() - 2]) : 1;
  if (rows == 0 || context.workspace == nullptr) return nullptr;
  const bool bf16 = bf16_weights_.channels() > 0;
  // The packing scratch of MultiplyRows on `gemm_rows` rows (and of the bf16 matrix-vector
  // product: its row in bf16 pairs).
  const auto packing_scratch = [&](int gemm_rows) {
    return bf16 ? std::max(Bf16GemmScratchSize(gemm_rows, bf16_weights_),
                           Bf16MatrixVectorScratchSize(bf16_weights_))
                : PackedGemmScratchSize(gemm_rows, in_features_);
  };
  const auto slices = static_cast<std::ptrdiff_t>(ShapeElementCount(input) / in_features_ / rows);
  const StackPlan plan = PlanStacks(slices, rows, in_features_ + out_features_);
  if (plan.groups == 0) {
    if (rows == 1 && !bf16) return nullptr;  // fp32 matrix-vector products need no scratch
    context.workspace->Reserve(ScratchSlot::kGemmPacking, packing_scratch(rows));
    return nullptr;
  }
  const size_t stacked_rows = static_cast<size_t>(plan.slices_per_group) * rows;
  context.workspace->Reserve(ScratchSlot::kFirst, stacked_rows * in_features_);
  context.workspace->Reserve(ScratchSlot::kSecond, stacked_rows * out_features_);
  context.workspace->Reserve(ScratchSlot::kGemmPacking,
                             packing_scratch(static_cast<int>(stacked_rows)));
  return nullptr;
}

bool Linear::FuseActivation(const Activation& activation) {
  if (activation_.kind != Activation::Kind::kIdentity) return false;
  activation_ = activation;
  return true;
}

bool Linear::FuseBias(const std::vector<float>& bias) {
  if (!bias_.empty() || activation_.kind != Activation::Kind::kIdentity ||
      bias.size() != static_cast<size_t>(out_features_)) {
    return false;
  }
  bias_ = bias;
  return true;
}

std::unique_ptr<Layer> Linear::ChannelsFirstForm() const {
  Node convolution_node;  // names the convolution in profiles and messages
  convolution_node.type = "nn.Conv2d";
  convolution_node.name = name();
  ConvolutionSpec spec;  // the default window: 1x1, stride 1, no padding
  spec.in_channels = in_features_;
  spec.out_channels = out_features_;
  spec.weights = weights_;
  spec.bias = bias_;
  auto convolution = std::make_unique<Convolution>(LayerConfig(convolution_node), std::move(spec));
  if (activation_.kind != Activation::Kind::kIdentity) convolution->FuseActivation(activation_);
  return convolution;
}

void Linear::FinishFeatures(float* result, int rows, int first, int end) const {
  if (bias_.empty() && activation_.kind == Activation::Kind::kIdentity) return;
  WithActivation(activation_, [&](auto function) {
    for (int feature = first; feature < end; ++feature) {
      float* column = result + static_cast<size_t>(feature) * rows;
      const float bias = bias_.empty() ? 0.0f : bias_[feature];
      for (int row = 0; row < rows; ++row) column[row] = function(column[row] + bias);
    }
  });
}

void Linear::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                     const ForwardContext& context) const {
  if (bf16_weights_.channels() > 0) {
    ForwardBf16(*inputs[0], *outputs[0], context.compute);
    return;
  }
  // LESSON 09 BEGIN: x W^T + b for every row of every slice
  const Tensor& input = *inputs[0];
  Tensor& output = *outputs[0];
  if (output.empty()) return;
  const int rows = static_cast<int>(input.rows());
  const auto slices = static_cast<std::ptrdiff_t>(input.channels());
  if (PlanStacks(slices, rows, in_features_ + out_features_).groups > 0) {
    ForwardStacked(input, output, context.compute);
    return;
  }
  if (rows == 1) {
    // One vector per slice (a classifier's head): a dot product per output feature, a
    // matrix-vector product that a GEMM's row panels would mostly waste.
    const int blocks = (out_features_ + kFeatureBlock - 1) / kFeatureBlock;
    const size_t products = static_cast<size_t>(slices) * out_features_ * in_features_;
    ParallelFor(
        context.compute.pool, slices * blocks,
        [&](std::ptrdiff_t task) {
          const float* x = input.channel_data(task / blocks);
          float* result = output.channel_data(task / blocks);
          const int first = static_cast<int>(task % blocks) * kFeatureBlock;
          const int end = std::min(out_features_, first + kFeatureBlock);
          MatrixVector(weights_.data() + static_cast<size_t>(first) * in_features_, in_features_,
                       end - first, x, in_features_, result + first);
          FinishFeatures(result, 1, first, end);
        },
        Schedule::kStatic, products >= kParallelProducts);
    return;
  }
  // Many slices (a batch of sequences): one slice per task, each GEMM on its own thread. Few
  // slices: one after another, each GEMM spread over the threads.
  const auto multiply = [&](std::ptrdiff_t slice) {
    PackedGemm(rows, input.channel_data(slice), rows, packed_weights_, output.channel_data(slice),
               rows, context.compute);
  };
  if (slices > 1 && slices >= context.compute.threads()) {
    ParallelFor(
        context.compute.pool, slices,
        [&](std::ptrdiff_t slice) {
          multiply(slice);
          FinishFeatures(output.channel_data(slice), rows, 0, out_features_);
        },
        Schedule::kDynamic);
    return;
  }
  const int blocks = (out_features_ + kFeatureBlock - 1) / kFeatureBlock;
  for (std::ptrdiff_t slice = 0; slice < slices; ++slice) {
    multiply(slice);
    float* result = output.channel_data(slice);
    ParallelFor(
        context.compute.pool, blocks,
        [&](std::ptrdiff_t block) {
          const int first = static_cast<int>(block) * kFeatureBlock;
          FinishFeatures(result, rows, first, std::min(out_features_, first + kFeatureBlock));
        },
        Schedule::kStatic, static_cast<size_t>(rows) * out_features_ >= kParallelProducts);
  }
  // LESSON 09 END
}

void Linear::ForwardStacked(const Tensor& input, Tensor& output,
                            const ComputeContext& compute) const {
  // Slice s holds rows [s * rows, (s + 1) * rows) of the stack. A column of the stacked input is
  // that column of each slice, one after another; the stacked output is split back the same way.
  const int rows = static_cast<int>(input.rows());
  const auto slices = static_cast<std::ptrdiff_t>(input.channels());
  const StackPlan plan = PlanStacks(slices, rows, in_features_ + out_features_);
  for (int group = 0; group < plan.groups; ++group) {
    const std::ptrdiff_t first_slice = static_cast<std::ptrdiff_t>(group) * plan.slices_per_group;
    const int count =
        static_cast<int>(std::min<std::ptrdiff_t>(plan.slices_per_group, slices - first_slice));
    const int stacked_rows = count * rows;
    const size_t size = static_cast<size_t>(stacked_rows);
    float* stacked_input = compute.Scratch(ScratchSlot::kFirst, size * in_features_);
    float* stacked_output = compute.Scratch(ScratchSlot::kSecond, size * out_features_);
    const bool parallel = size * (in_features_ + out_features_) >= kParallelProducts;
    if (rows == 1) {
      // Slices of one row are the rows of a row-major (count x in) matrix: the stack is its
      // transpose.
      TransposeMatrix(input.channel_data(first_slice), size, in_features_, stacked_input,
                      compute.pool);
    } else {
      ParallelFor(
          compute.pool, in_features_,
          [&](std::ptrdiff_t column) {
            for (int slice = 0; slice < count; ++slice) {
              const float* source = input.channel_data(first_slice + slice) + column * rows;
              std::copy(source, source + rows, stacked_input + column * size + slice * rows);
            }
          },
          Schedule::kStatic, parallel);
    }
    MultiplyRows(stacked_rows, stacked_input, stacked_output, compute);
    // Bias and activation over each stacked column in one run of `size` floats, which the
    // compiler vectorises (per slice, runs of 6 rows left GELU's erf mostly scalar), then the
    // column goes back to its slices while it is still in the cache.
    WithActivation(activation_, [&](auto function) {
      ParallelFor(
          compute.pool, out_features_,
          [&](std::ptrdiff_t feature) {
            const float bias = bias_.empty() ? 0.0f : bias_[feature];
            float* column = stacked_output + feature * size;
            for (size_t i = 0; i < size; ++i) column[i] = function(column[i] + bias);
            if (rows == 1) return;  // transposed back below, whole
            for (int slice = 0; slice < count; ++slice) {
              const float* source = column + slice * rows;
              std::copy(source, source + rows,
                        output.channel_data(first_slice + slice) + feature * rows);
            }
          },
          Schedule::kStatic, parallel);
    });
    if (rows == 1) {
      TransposeMatrix(stacked_output, out_features_, size, output.channel_data(first_slice),
                      compute.pool);
    }
  }
}

void Linear::MultiplyRows(int rows, const float* x, float* y, const ComputeContext& compute) const {
  if (bf16_weights_.channels() > 0) {
    Bf16Gemm(rows, x, rows, bf16_weights_, nullptr, Activation{}, y, rows, compute);
    return;
  }
  PackedGemm(rows, x, rows, packed_weights_, y, rows, compute);
}

void Linear::ForwardBf16(const Tensor& input, Tensor& output, const ComputeContext& compute) const {
  if (output.empty()) return;
  const int rows = static_cast<int>(input.rows());
  const auto slices = static_cast<std::ptrdiff_t>(input.channels());
  if (PlanStacks(slices, rows, in_features_ + out_features_).groups > 0) {
    ForwardStacked(input, output, compute);  // reads the weights once per group of slices
    return;
  }
  const float* bias = bias_.empty() ? nullptr : bias_.data();
  for (std::ptrdiff_t slice = 0; slice < slices; ++slice) {
    if (rows == 1) {  // a row of in_features in, a row of out_features out
      Bf16MatrixVector(input.channel_data(slice), 1, bf16_weights_, bias, activation_,
                       output.channel_data(slice), compute);
    } else {
      Bf16Gemm(rows, input.channel_data(slice), rows, bf16_weights_, bias, activation_,
               output.channel_data(slice), rows, compute);
    }
  }
}

LUMEN_REGISTER_LAYER(Linear, "nn.Linear");

}  // namespace lumen
