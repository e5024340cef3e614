// lumen.QuantizedLinear: nn.Linear with int8 weights, computed by the int8 GEMM.
//
// The file format (see quantized_weights.hpp and course/pnnx-format.md): nn.Linear's parameters
// (in_features, out_features, bias) plus input_scale and input_zero_point; @weight i8 of shape
// (out_features, in_features), @weight_scales f32 (out_features), @bias f32.
//
// Input and output are float: Forward quantises the input per tensor and multiplies each slice
// (a column-major rows x in_features matrix, as nn.Linear's layer reads it) with Int8Gemm, which
// dequantises, adds the bias and applies the fused activation. A slice of one row (batch 1) takes
// the GEMM's matrix-vector path; many slices of one row (a sequence-first (L, 1, E) operand) are
// transposed into one matrix of L rows, so that one GEMM reads the weights once, not L times.
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "base/thread_pool.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "layer/quantized/quantized_weights.hpp"
#include "lumen/error.hpp"
#include "math/int8_gemm.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// From this many slices of one row on, they are stacked into one GEMM (below, the matrix-vector
// path serves each slice as well as a GEMM would serve them all).
constexpr size_t kStackVectorsFrom = 5;

// The quantised input of one run, kept per session so that Forward does not allocate, and for
// stacked one-row slices the stacked input and output.
class QuantizedLinearState : public LayerState {
 public:
  // Buffers for an input of `bytes` elements; `stacked_outputs` floats when slices are stacked.
  QuantizedLinearState(size_t bytes, size_t stacked_outputs)
      : quantized_input(bytes),
        stacked_input(stacked_outputs > 0 ? bytes : 0),
        stacked_output(stacked_outputs) {}
  // The buffers.
  size_t bytes() const override {
    return quantized_input.size() + stacked_input.size() + stacked_output.size() * sizeof(float);
  }

  std::vector<uint8_t> quantized_input;
  std::vector<uint8_t> stacked_input;  // column-major (slices x in_features)
  std::vector<float> stacked_output;   // column-major (slices x out_features)
};

}  // namespace

// A fully connected layer on int8 weights (per output feature) and uint8 activations (per
// tensor), applied to the last dimension: (..., in_features) -> (..., out_features).
class QuantizedLinear : public Layer {
 public:
  // Reads and checks the parameters and weights, and packs the weights once.
  explicit QuantizedLinear(const LayerConfig& config);
  // The input's shape with its last dimension in_features replaced by out_features.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    return LastDimensionMapped(input_shapes, in_features_, out_features_);
  }
  // Sizes the session's quantised input and reserves the GEMM's scratch.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Quantises the input and multiplies every slice.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;
  // Applies `activation` in the GEMM's epilogue, if none is fused yet.
  bool FuseActivation(const Activation& activation) override {
    return edges_.FuseActivation(activation);
  }

 private:
  int in_features_ = 0;
  int out_features_ = 0;
  Int8PackedWeights weights_;
  QuantizedEdges edges_;  // input quantisation, bias, fused activation
};

QuantizedLinear::QuantizedLinear(const LayerConfig& config)
    : Layer(config),
      in_features_(config.IntParam("in_features")),
      out_features_(config.IntParam("out_features")) {
  if (in_features_ < 1 || out_features_ < 1) {
    Fail(Concat("in_features and out_features must be positive, got ", in_features_, " and ",
                out_features_));
  }
  if (in_features_ > kInt8GemmMaxDepth) {
    Fail(Concat("in_features ", in_features_, " is more than the int8 GEMM's ", kInt8GemmMaxDepth));
  }
  edges_ = QuantizedEdges(config, out_features_);
  const QuantizedWeights weights = ReadQuantizedWeights(config, {out_features_, in_features_});
  weights_ = Int8PackedWeights(weights.values.data(), out_features_, in_features_, in_features_,
                               weights.scales.data());
}

StatePointer QuantizedLinear::Prepare(const Shapes& input_shapes, const Shapes&,
                                      const PrepareContext& context) const {
  const Shape& input = input_shapes[0];
  const size_t elements = ShapeElementCount(input);
  const int rows = input.size() >= 2 ? static_cast<int>(input[input.size() - 2]) : 1;
  const size_t slices = rows == 0 ? 0 : elements / in_features_ / rows;
  const bool stacked = rows == 1 && slices >= kStackVectorsFrom;
  if (stacked && slices > static_cast<size_t>(std::numeric_limits<int>::max())) {
    Fail(Concat("input ", ShapeToString(input), " has too many rows"));
  }
  const int gemm_rows = stacked ? static_cast<int>(slices) : rows;
  if (gemm_rows > 0 && context.workspace != nullptr) {
    context.workspace->Reserve(ScratchSlot::kGemmPacking, Int8GemmScratchSize(gemm_rows, weights_));
  }
  return std::make_unique<QuantizedLinearState>(elements, stacked ? slices * out_features_ : 0);
}

void QuantizedLinear::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                              const ForwardContext& context) const {
  const Tensor& input = *inputs[0];
  Tensor& output = *outputs[0];
  if (output.empty()) return;
  QuantizedLinearState& state = context.state_as<QuantizedLinearState>();
  uint8_t* quantized = state.quantized_input.data();
  const int rows = static_cast<int>(input.rows());
  const size_t slice_size = static_cast<size_t>(rows) * in_features_;
  const size_t slices = input.channels();
  ParallelForRuns(context.compute.pool, slices, slice_size, [&](size_t first, size_t end) {
    QuantizeToUint8(input.channel_data(first), (end - first) * slice_size, edges_.input(),
                    quantized + first * slice_size);
  });
  if (!state.stacked_output.empty()) {
    // One-row slices are the rows of a row-major (slices x in_features) matrix: the GEMM's A is
    // its transpose, and its column-major (slices x out_features) result the output's transpose.
    const int stacked_rows = static_cast<int>(slices);
    uint8_t* stacked = state.stacked_input.data();
    ParallelForRuns(context.compute.pool, in_features_, slices, [&](size_t first, size_t end) {
      for (size_t feature = first; feature < end; ++feature) {
        for (size_t slice = 0; slice < slices; ++slice) {
          stacked[feature * slices + slice] = quantized[slice * in_features_ + feature];
        }
      }
    });
    Int8Gemm(stacked_rows, stacked, stacked_rows, edges_.input(), weights_, edges_.bias(),
             edges_.activation(), state.stacked_output.data(), stacked_rows, context.compute);
    TransposeMatrix(state.stacked_output.data(), out_features_, slices, output.data(),
                    context.compute.pool);
    return;
  }
  // Slice s is the column-major (rows x in_features) A at quantized + s * slice_size; its output
  // the column-major (rows x out_features) C.
  for (size_t slice = 0; slice < slices; ++slice) {
    Int8Gemm(rows, quantized + slice * slice_size, rows, edges_.input(), weights_, edges_.bias(),
             edges_.activation(), output.channel_data(slice), rows, context.compute);
  }
}

LUMEN_REGISTER_LAYER(QuantizedLinear, "lumen.QuantizedLinear");

}  // namespace lumen
