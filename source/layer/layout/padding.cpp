// F.pad and the padding modules: nn.ConstantPad1d/2d/3d, nn.ZeroPad2d, nn.ReflectionPad1d/2d,
// nn.ReplicationPad1d/2d/3d.
#include "kernel/padding.hpp"

#include <memory>
#include <string>
#include <vector>

#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// Per session: the padding plan for this input shape.
struct PaddingState : LayerState {
  PaddingPlan plan;
  size_t bytes() const override { return plan.bytes(); }
};

// The mode a pnnx F.pad names.
PaddingMode ModeNamed(const std::string& name, const std::string& description) {
  if (name == "constant") return PaddingMode::kConstant;
  if (name == "reflect") return PaddingMode::kReflect;
  if (name == "replicate") return PaddingMode::kReplicate;
  if (name == "circular") return PaddingMode::kCircular;
  throw Error(Concat(description, ": unknown padding mode '", name,
                     "' (expected constant, reflect, replicate or circular)"));
}

}  // namespace

// The pad list holds (before, after) pairs from the last dimension backwards, as in F.pad:
// (left, right, top, bottom, front, back). Negative values crop. Constant padding applies to any
// number of trailing dimensions; the other modes pad the last 1, 2 or 3 dimensions of a tensor
// with one or two more (unbatched or batched), as PyTorch allows.
class Padding : public Layer {
 public:
  // Reads pad/mode/value (F.pad) or padding/value (the modules, whose type gives the mode and how
  // many dimensions a single int pads).
  explicit Padding(const LayerConfig& config) : Layer(config) {
    const std::string& type = config.type();
    const std::string key = type == "F.pad" ? "pad" : "padding";
    if (type == "F.pad") {
      mode_ = ModeNamed(config.StringParam("mode", "constant"), config.Describe());
    } else if (type.rfind("nn.Reflection", 0) == 0) {
      mode_ = PaddingMode::kReflect;
    } else if (type.rfind("nn.Replication", 0) == 0) {
      mode_ = PaddingMode::kReplicate;
    }
    if (mode_ == PaddingMode::kConstant && config.HasParam("value") &&
        !config.Param("value").IsNone()) {
      value_ = config.FloatParam("value");
    }
    const Parameter& pad = config.Param(key);
    if (pad.type() == Parameter::Type::kInt) {
      // nn.ConstantPad2d(2): the same on both sides of each of the module's dimensions.
      const size_t dims = type.empty() ? 0 : static_cast<size_t>(type[type.size() - 2] - '0');
      if (type == "F.pad" || dims < 1 || dims > 3) {
        Fail(Concat("'", key, "' must be a list of (before, after) pairs, got ", pad.text()));
      }
      pads_.assign(2 * dims, pad.AsInt());
    } else {
      pads_ = config.IntArrayParam(key);
    }
    if (pads_.empty() || pads_.size() % 2 != 0) {
      Fail(Concat("'", key, "' must hold (before, after) pairs, got ", pad.text()));
    }
  }

  // The input with each padded dimension grown (or cropped). Only the shape: the plan's index
  // tables grow with the output, so they are made in Prepare, once the session has checked that
  // the output fits its memory budget (a pad of 2^30 once spent a minute building them here).
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    const Shape& input = input_shapes[0];
    std::vector<AxisPadding> padding = Paddings(input);
    try {
      return {PaddedShape(mode_, input, &padding)};
    } catch (const Error& error) {
      Fail(Concat("input ", ShapeToString(input), ": ", error.what()));
    }
  }

  // Plans the padding for this input shape.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& /*output_shapes*/,
                       const PrepareContext& /*context*/) const override {
    auto state = std::make_unique<PaddingState>();
    state->plan = Plan(input_shapes[0]);
    return state;
  }

  // Pads the input.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    Pad(context.state_as<PaddingState>().plan, inputs[0]->data(), value_, outputs[0]->data(),
        context.compute.pool);
  }

 private:
  // The (before, after) of every dimension of `input`; throws lumen::Error naming the layer when
  // the pads do not fit its rank.
  std::vector<AxisPadding> Paddings(const Shape& input) const {
    const size_t rank = input.size();
    const size_t padded_dims = pads_.size() / 2;
    if (padded_dims > rank) {
      Fail(Concat(pads_.size(), " pad values pad ", padded_dims, " dimensions, but the input ",
                  ShapeToString(input), " has ", rank));
    }
    if (mode_ != PaddingMode::kConstant &&
        (padded_dims > 3 || (rank != padded_dims + 1 && rank != padded_dims + 2))) {
      Fail(Concat(PaddingModeName(mode_), " padding of the last ", padded_dims,
                  " dimension(s) needs an input of rank ", padded_dims + 1, " or ", padded_dims + 2,
                  ", got ", ShapeToString(input)));
    }
    std::vector<AxisPadding> padding(rank);
    for (size_t i = 0; i < padded_dims; ++i) {
      padding[rank - 1 - i].before = pads_[2 * i];
      padding[rank - 1 - i].after = pads_[2 * i + 1];
    }
    return padding;
  }

  // The plan for `input`; throws lumen::Error naming the layer when PyTorch would refuse it.
  PaddingPlan Plan(const Shape& input) const {
    const std::vector<AxisPadding> padding = Paddings(input);
    try {
      return MakePaddingPlan(mode_, input, SignedStorageStrides(input), padding);
    } catch (const Error& error) {
      Fail(Concat("input ", ShapeToString(input), ": ", error.what()));
    }
  }

  PaddingMode mode_ = PaddingMode::kConstant;
  float value_ = 0.0f;
  std::vector<int> pads_;
};

LUMEN_REGISTER_LAYER(Padding, "F.pad", "nn.ConstantPad1d", "nn.ConstantPad2d", "nn.ConstantPad3d",
                     "nn.ZeroPad2d", "nn.ReflectionPad1d", "nn.ReflectionPad2d",
                     "nn.ReplicationPad1d", "nn.ReplicationPad2d", "nn.ReplicationPad3d");

}  // namespace lumen
