// nn.Conv2d and nn.Conv1d: convolution with stride, padding (zeros, reflect, replicate or
// circular), dilation, groups and bias.
#ifndef LUMEN_LAYER_CONVOLUTION_CONVOLUTION_HPP_
#define LUMEN_LAYER_CONVOLUTION_CONVOLUTION_HPP_

#include <array>
#include <memory>
#include <mutex>
#include <vector>

#include "kernel/convolution_algorithm.hpp"
#include "kernel/padding.hpp"
#include "layer/convolution/convolution_layer.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// Whether lumen.QuantizedConv2d computes a layer of this shape in int8 (on the int8 GEMM, or the
// integer Winograd of kernel/quantized_winograd) rather than in its float form (fp32 with the
// weights dequantised): undilated 3x3 stride-1 layers (those the integer Winograd takes),
// others with at least 32 products per output (their depth) and 32 output channels per group. The
// narrower ones gain nothing from int8 products (see layer/quantized/quantized_convolution.cpp), so
// the quantiser leaves them fp32, where int8 weights would only have added their rounding (most of
// a MobileNetV2's int8 error: its minimum cosine with fp32 over 32 inputs 0.99447 with them,
// 0.99904 without). The same answer on every CPU.
bool QuantizedConvolutionComputesInInt8(const Window2d& window, int in_channels, int out_channels,
                                        int groups);

// What a Convolution keeps per session and input size: the algorithm it chose for that size (one
// of the layer's, shared by every session) and how that algorithm runs it; and, for a 1-D
// convolution or a padding mode other than zeros, the buffers the input is staged in.
class ConvolutionState : public LayerState {
 public:
  // The chosen algorithm and its plan.
  ConvolutionState(const ConvolutionAlgorithm* algorithm, const ConvolutionPlan& plan)
      : algorithm_(algorithm), plan_(plan) {}
  // The algorithm Forward runs (its name() tells profiles which one).
  const ConvolutionAlgorithm& algorithm() const { return *algorithm_; }
  // How it runs at this input size.
  const ConvolutionPlan& plan() const { return plan_; }
  // The staging buffers and the plans that fill and empty them.
  size_t bytes() const override {
    return (staged_input.size() + staged_output.size()) * sizeof(float) + staging.bytes();
  }

  // How the input is copied into staged_input: padded (reflect, replicate, circular), and for a
  // 1-D convolution turned from (N,C,L), channels innermost, into N*C rows of L.
  PaddingPlan staging;
  std::vector<float> staged_input;  // empty: the algorithm reads the input tensor itself
  // A 1-D convolution's output as the algorithm writes it (N*C rows of L), and the copy that
  // turns it into the (N,C,L) layout of the output tensor.
  std::vector<float> staged_output;
  StridedCopy output_copy;

 private:
  const ConvolutionAlgorithm* algorithm_;
  ConvolutionPlan plan_;
};

// The layer reads and checks the parameters; the arithmetic is done by a ConvolutionAlgorithm
// (source/kernel/convolution_algorithm.hpp), chosen in Prepare once the input size is known.
//
// Each algorithm needs the weights in its own form (packed, Winograd-transformed), built once per
// model and shared by every session. Most geometries have one candidate algorithm, built in the
// constructor. 3x3 stride-1 layers use im2col, F(2x2, 3x3) or F(4x4, 3x3) depending on the map
// size: each is built by the first Prepare that chooses it (under a mutex, since sessions prepare
// concurrently), so a model run at one size holds one form of each layer's weights, not three.
class Convolution : public ConvolutionLayer {
 public:
  // Reads the nn.Conv2d (nn.Conv1d) parameters and weights; throws lumen::Error on inconsistent
  // ones.
  explicit Convolution(const LayerConfig& config);
  // A 2-D convolution of `spec` (zero padding), named by `config`, whose type and name only are
  // read: the channels-first form of a layer that is a 1x1 convolution per pixel (nn.Linear).
  Convolution(const LayerConfig& config, ConvolutionSpec spec);
  // Chooses the algorithm for the input size (building its weights on first use), plans it for
  // the session's threads and reserves its scratch.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Convolves each sample.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;
  // Applies `activation` to the output as well, if no activation is fused yet: the graph fuses a
  // following ReLU or SiLU this way, saving one pass over memory.
  bool FuseActivation(const Activation& activation) override;
  // lumen.QuantizedConv2d for a 2-D, zero-padded, ungrouped convolution that its int8 form
  // computes in int8 (QuantizedConvolutionComputesInInt8). Grouped and depthwise layers stay
  // float: the int8 GEMM would run one narrow product per group.
  std::string QuantizedType() const override;

 private:
  // Plans the staging of `input` (see ConvolutionState::staging).
  PaddingPlan StagingPlan(const Shape& input) const;
  // When one algorithm serves every input size: builds it now and drops PyTorch's weights.
  void BuildTheOnlyAlgorithm();
  // The algorithm `kind` with its weights, built on first use.
  const ConvolutionAlgorithm& PreparedAlgorithm(ConvolutionAlgorithmKind kind) const;

  ConvolutionSpec spec_;  // weights released once every candidate algorithm is built
  Activation activation_;
  bool activation_fused_ = false;
  mutable std::mutex mutex_;  // guards algorithms_ while Prepare builds one
  mutable std::array<std::unique_ptr<const ConvolutionAlgorithm>, kConvolutionAlgorithmKinds>
      algorithms_;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_CONVOLUTION_CONVOLUTION_HPP_
