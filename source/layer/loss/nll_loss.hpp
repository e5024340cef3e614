// F.nll_loss, and what F.cross_entropy shares with it: the negative log-likelihood of class
// targets, -weight[t] * input[n, t, d1, ..., dk] at every position, with PyTorch's (and ONNX's
// NegativeLogLikelihoodLoss's) reductions: none, sum, and mean (the sum divided by the summed
// weights of the targets not ignored). Targets are class numbers held as floats.
#ifndef LUMEN_LAYER_LOSS_NLL_LOSS_HPP_
#define LUMEN_LAYER_LOSS_NLL_LOSS_HPP_

#include <vector>

#include "layer/arithmetic/axis_lines.hpp"
#include "layer/layer.hpp"

namespace lumen {

// Per session: the class lines of the input (one per target), and, for F.cross_entropy without a
// log_prob output, the scratch its log-probabilities go to.
struct LossState : LayerState {
  AxisLines lines;
  std::vector<float> log_prob;
  size_t bytes() const override { return log_prob.size() * sizeof(float); }
};

// Inputs: log-probabilities (N, C, d1, ..., dk), targets (N, d1, ..., dk), optionally a weight
// per class (C). Output: the loss, of the targets' shape (reduction none) or a scalar.
class NllLoss : public Layer {
 public:
  // Reads reduction ('mean' by default) and ignore_index (-100 by default, as in PyTorch).
  explicit NllLoss(const LayerConfig& config);
  // The loss's shape, after checking the targets' and the weight's shapes against the input's.
  Shapes OutputShapes(const Shapes&) const override;
  // Plans the class lines of the input.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // The loss of input 0 taken as log-probabilities.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;

 protected:
  // The loss of `log_prob` (the input's shape, in its memory order) into `loss`, reading the
  // targets and the weight (if any) from `inputs`.
  void WriteLoss(const LossState& state, const float* log_prob, const InputTensors& inputs,
                 Tensor* loss) const;

 private:
  enum class Reduction { kNone, kSum, kMean };
  Reduction reduction_ = Reduction::kMean;
  int ignore_index_ = -100;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_LOSS_NLL_LOSS_HPP_
