// F.cross_entropy: F.nll_loss of F.log_softmax(input, 1), with the log-probabilities as an
// optional second output (ONNX's SoftmaxCrossEntropyLoss, which maps onto it, has that output).
#include <memory>

#include "kernel/softmax.hpp"
#include "layer/layer_registry.hpp"
#include "layer/loss/nll_loss.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// Inputs as F.nll_loss's, input 0 being scores (logits); outputs the loss and, if the operator
// has a second output, the log-probabilities (the input's shape).
class CrossEntropy : public NllLoss {
 public:
  // Reads what F.nll_loss reads; one or two outputs.
  explicit CrossEntropy(const LayerConfig& config);
  // The loss's shape, and the input's for the log-probabilities.
  Shapes OutputShapes(const Shapes&) const override;
  // Plans the class lines and, without a log_prob output, sizes the scratch that holds them.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // The log-softmax along the classes, then its negative log-likelihood.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;

 private:
  bool log_prob_output_ = false;
};

CrossEntropy::CrossEntropy(const LayerConfig& config) : NllLoss(config) {
  if (config.output_count() > 2) {
    Fail(Concat("expected 1 or 2 outputs (loss, log_prob), got ", config.output_count()));
  }
  log_prob_output_ = config.output_count() == 2;
}

Shapes CrossEntropy::OutputShapes(const Shapes& input_shapes) const {
  Shapes outputs = NllLoss::OutputShapes(input_shapes);
  if (log_prob_output_) outputs.push_back(input_shapes[0]);
  return outputs;
}

StatePointer CrossEntropy::Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                                   const PrepareContext& context) const {
  StatePointer state = NllLoss::Prepare(input_shapes, output_shapes, context);
  if (!log_prob_output_) {
    static_cast<LossState&>(*state).log_prob.resize(ShapeElementCount(input_shapes[0]));
  }
  return state;
}

void CrossEntropy::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                           const ForwardContext& context) const {
  LossState& state = context.state_as<LossState>();
  float* log_prob = log_prob_output_ ? outputs[1]->data() : state.log_prob.data();
  LogSoftmaxSlices(SplitAroundAxis(inputs[0]->shape(), 1), inputs[0]->data(), log_prob,
                   context.compute.pool);
  WriteLoss(state, log_prob, inputs, outputs[0]);
}

LUMEN_REGISTER_LAYER(CrossEntropy, "F.cross_entropy");

}  // namespace lumen
