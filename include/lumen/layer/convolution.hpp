// nn.Conv2d: 2-D convolution with stride, padding, dilation, groups and bias.
#ifndef LUMEN_LAYER_CONVOLUTION_HPP_
#define LUMEN_LAYER_CONVOLUTION_HPP_

#include <array>
#include <memory>
#include <mutex>
#include <vector>

#include "lumen/kernel/convolution_algorithm.hpp"
#include "lumen/layer/layer.hpp"

namespace lumen {

// What a Convolution keeps per session and input size: the algorithm it chose for that size (one
// of the layer's, shared by every session) and how that algorithm runs it.
class ConvolutionState : public LayerState {
 public:
  // The chosen algorithm and its plan.
  ConvolutionState(const ConvolutionAlgorithm* algorithm, const ConvolutionPlan& plan)
      : algorithm_(algorithm), plan_(plan) {}
  // The algorithm Forward runs (its name() tells profiles which one).
  const ConvolutionAlgorithm& algorithm() const { return *algorithm_; }
  // How it runs at this input size.
  const ConvolutionPlan& plan() const { return plan_; }

 private:
  const ConvolutionAlgorithm* algorithm_;
  ConvolutionPlan plan_;
};

// The layer reads and checks the parameters; the arithmetic is done by a ConvolutionAlgorithm
// (include/lumen/kernel/convolution_algorithm.hpp), chosen in Prepare once the input size is known.
//
// Each algorithm needs the weights in its own form (packed, Winograd-transformed), built once per
// model and shared by every session. Most geometries have one candidate algorithm, built in the
// constructor. 3x3 stride-1 layers use im2col, F(2x2, 3x3) or F(4x4, 3x3) depending on the map
// size: each is built by the first Prepare that chooses it (under a mutex, since sessions prepare
// concurrently), so a model run at one size holds one form of each layer's weights, not three.
class Convolution : public Layer {
 public:
  // Reads the nn.Conv2d parameters and weights; throws lumen::Error on inconsistent ones.
  explicit Convolution(const LayerConfig& config);
  // (N, in_channels, H, W) or (in_channels, H, W) -> the same with out_channels and the size the
  // window gives.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Chooses the algorithm for the input size (building its weights on first use), plans it for
  // the session's threads and reserves its scratch.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override;
  // Convolves each sample.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;
  // Applies `activation` to the output as well, if no activation is fused yet: the graph fuses a
  // following ReLU or SiLU this way, saving one pass over memory.
  bool FuseActivation(const Activation& activation) override;

 private:
  // The planes of one sample of `input`; throws lumen::Error naming the layer when the input is
  // not (N, in_channels, H, W) or (in_channels, H, W) or the window does not fit.
  ConvolutionShape SampleShape(const Shape& input) const;
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

#endif  // LUMEN_LAYER_CONVOLUTION_HPP_
