// F.normalize: x / max(||x||_p, eps), the p-norm taken along one dimension (p any float, inf and
// -inf included; PyTorch's defaults p=2, dim=1, eps=1e-12). The arithmetic is the shared
// normalisation kernel (kernel/normalization.hpp).
#include <cmath>

#include "layer/layer_registry.hpp"
#include "layer/normalization/normalization.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// Per session: the input seen as (outer, extent, inner) around dim.
struct NormalizeState : LayerState {
  NormalizationGroups groups;
};

// The dimension F.normalize reduces: an int, or a list of one (pnnx writes both).
int DimParam(const LayerConfig& config) {
  if (!config.HasParam("dim")) return 1;
  const Parameter& parameter = config.Param("dim");
  if (parameter.type() == Parameter::Type::kInt) return parameter.AsInt();
  const std::vector<int> dims = config.IntArrayParam("dim");
  if (dims.size() != 1) {
    throw Error(Concat(config.Describe(), ": dim ", parameter.text(),
                       " is not supported: Lumen normalises along one dimension"));
  }
  return dims[0];
}

// Lp normalisation along one dimension.
class Normalize : public Layer {
 public:
  explicit Normalize(const LayerConfig& config)
      : Layer(config),
        dim_(DimParam(config)),
        p_(config.FloatParam("p", 2.0f)),
        eps_(config.FloatParam("eps", 1e-12f)) {
    if (std::isnan(p_)) Fail("p must not be NaN");
  }

  // One input; the output has its shape.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    // A scalar is a 1-element vector to PyTorch, which accepts dim 0 or -1 for it.
    Axis(dim_, std::max<size_t>(input_shapes[0].size(), 1));
    return {input_shapes[0]};
  }

  // Locates dim in memory for this input shape.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& /*output_shapes*/,
                       const PrepareContext& context) const override {
    auto state = std::make_unique<NormalizeState>();
    const Shape& input = input_shapes[0];
    if (input.empty()) {
      state->groups = {1, 1, 1, 1};
    } else {
      const AxisSplit split = SplitAroundAxis(input, Axis(dim_, input.size()));
      state->groups = {split.outer, split.extent, split.inner, 1};
    }
    if (context.workspace != nullptr) {
      context.workspace->Reserve(ScratchSlot::kFirst, NormalizationScratchSize(state->groups));
    }
    return state;
  }

  // Divides every slice along dim by its clamped norm.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    NormalizeGroups(
        inputs[0]->data(), outputs[0]->data(), context.state_as<NormalizeState>().groups,
        {NormalizationStatistic::kNorm, eps_, p_}, NormalizationAffine(), context.compute);
  }

 private:
  int dim_;
  float p_;
  float eps_;
};

}  // namespace

LUMEN_REGISTER_LAYER(Normalize, "F.normalize");

}  // namespace lumen
