// F.nll_loss (nll_loss.hpp); ONNX's NegativeLogLikelihoodLoss maps onto it.
#include "layer/loss/nll_loss.hpp"

#include <cmath>
#include <memory>
#include <string>

#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {

NllLoss::NllLoss(const LayerConfig& config) : Layer(config) {
  const std::string reduction = config.StringParam("reduction", "mean");
  if (reduction == "none") {
    reduction_ = Reduction::kNone;
  } else if (reduction == "sum") {
    reduction_ = Reduction::kSum;
  } else if (reduction != "mean") {
    Fail(Concat("reduction must be none, sum or mean, got '", reduction, "'"));
  }
  ignore_index_ = config.IntParam("ignore_index", -100);
  if (config.HasParam("label_smoothing") && config.FloatParam("label_smoothing") != 0.0f) {
    Fail("label_smoothing is not supported");
  }
}

Shapes NllLoss::OutputShapes(const Shapes& input_shapes) const {
  if (input_shapes.size() != 2 && input_shapes.size() != 3) {
    Fail(Concat("expected 2 or 3 inputs (input, target, weight), got ", input_shapes.size()));
  }
  const Shape& input = input_shapes[0];
  if (input.size() < 2) {
    Fail(Concat("the input must be (N, C, d1, ..., dk), got ", ShapeToString(input)));
  }
  Shape target = input;
  target.erase(target.begin() + 1);
  if (input_shapes[1] != target) {
    Fail(Concat("the target must have the input's shape without its class dimension, ",
                ShapeToString(target), ", got ", ShapeToString(input_shapes[1])));
  }
  if (input_shapes.size() == 3 && input_shapes[2] != Shape{input[1]}) {
    Fail(Concat("the weight must have one value per class, (", input[1], "), got ",
                ShapeToString(input_shapes[2])));
  }
  return {reduction_ == Reduction::kNone ? target : Shape{}};
}

StatePointer NllLoss::Prepare(const Shapes& input_shapes, const Shapes&,
                              const PrepareContext&) const {
  auto state = std::make_unique<LossState>();
  state->lines = MakeAxisLines(input_shapes[0], 1, input_shapes[1], false);
  return state;
}

void NllLoss::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                      const ForwardContext& context) const {
  WriteLoss(context.state_as<LossState>(), inputs[0]->data(), inputs, outputs[0]);
}

void NllLoss::WriteLoss(const LossState& state, const float* log_prob, const InputTensors& inputs,
                        Tensor* loss) const {
  const AxisLines& lines = state.lines;
  const float* targets = inputs[1]->data();
  const float* weights = inputs.size() > 2 ? inputs[2]->data() : nullptr;
  float* out = loss->data();
  // Sums in double: a mean over many positions keeps float's precision.
  double total = 0.0;
  double total_weight = 0.0;
  for (size_t line = 0; line < lines.count; ++line) {
    size_t input_base = 0, target_base = 0;
    lines.Locate(line, &input_base, &target_base);
    const float target = targets[target_base];
    double value = 0.0;
    double weight = 0.0;
    if (target != static_cast<float>(ignore_index_)) {
      if (!(target >= 0.0f && target < static_cast<float>(lines.extent)) ||
          target != std::floor(target)) {
        Fail(Concat("target ", target, " is not a class in [0, ", lines.extent,
                    ") nor ignore_index ", ignore_index_));
      }
      const size_t target_class = static_cast<size_t>(target);
      weight = weights ? weights[target_class] : 1.0;
      value = -weight * log_prob[input_base + target_class * lines.input_step];
    }
    if (reduction_ == Reduction::kNone) {
      out[target_base] = static_cast<float>(value);
    } else {
      total += value;
      total_weight += weight;
    }
  }
  if (reduction_ == Reduction::kSum) out[0] = static_cast<float>(total);
  // No target counted: 0 / 0, NaN, as in PyTorch.
  if (reduction_ == Reduction::kMean) out[0] = static_cast<float>(total / total_weight);
}

LUMEN_REGISTER_LAYER(NllLoss, "F.nll_loss");

}  // namespace lumen
