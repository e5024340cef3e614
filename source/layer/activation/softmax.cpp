// nn.Softmax / F.softmax: exp(x) / sum(exp(x)) along one dimension, computed stably; the same
// layer, with another Function, is nn.LogSoftmax, nn.Softmin and nn.Softmax2d (their own files).
#include "layer/activation/softmax.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "kernel/softmax.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// Per session: the input seen as (outer, extent, inner) blocks around dim.
struct SoftmaxState : LayerState {
  AxisSplit split{0, 0, 0};
};

// The dim the operator's parameter gives, or `implicit` when it is None or absent.
int DimParam(const LayerConfig& config, int implicit) {
  if (!config.HasParam("dim") || config.Param("dim").IsNone()) return implicit;
  return config.IntParam("dim");
}

}  // namespace

Softmax::Softmax(const LayerConfig& config) : Softmax(config, Function::kSoftmax, kDimFromConfig) {}

Softmax::Softmax(const LayerConfig& config, Function function, int dim)
    : Layer(config), function_(function) {
  dim_ = dim == kDimFromConfig ? DimParam(config, kImplicitDim) : dim;
  if (config.HasParam("dtype") && !config.Param("dtype").IsNone()) {
    const std::string dtype = config.StringParam("dtype");
    if (dtype != "torch.float" && dtype != "torch.float32") {
      Fail(Concat("dtype ", dtype, " is not supported: Lumen computes in float32"));
    }
  }
}

bool Softmax::SoftmaxAlong(int* dim) const {
  if (function_ != Function::kSoftmax || dim_ == kImplicitDim) return false;
  *dim = dim_;
  return true;
}

size_t Softmax::DimFor(size_t rank) const {
  if (dim_ == kImplicitDim) return rank == 0 || rank == 1 || rank == 3 ? 0 : 1;
  // A scalar is a 1-element vector to PyTorch, which accepts dim 0 or -1 for it.
  const size_t axis = Axis(dim_, std::max<size_t>(rank, 1));
  return rank == 0 ? 0 : axis;
}

std::vector<Shape> Softmax::OutputShapes(const std::vector<Shape>& input_shapes) const {
  CheckInputCount(input_shapes, 1);
  const Shape& input = input_shapes[0];
  DimFor(input.size());
  return {input};
}

std::unique_ptr<LayerState> Softmax::Prepare(const std::vector<Shape>& input_shapes,
                                             const std::vector<Shape>& /*output_shapes*/,
                                             const PrepareContext& /*context*/) const {
  auto state = std::make_unique<SoftmaxState>();
  const Shape& input = input_shapes[0];
  if (ShapeElementCount(input) == 0) return state;  // nothing to normalise
  if (input.empty()) {
    state->split = AxisSplit{1, 1, 1};
  } else {
    state->split = SplitAroundAxis(input, DimFor(input.size()));
  }
  return state;
}

void Softmax::Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
                      const ForwardContext& context) const {
  const AxisSplit& split = context.state_as<SoftmaxState>().split;
  const float* input = inputs[0]->data();
  float* output = outputs[0]->data();
  switch (function_) {
    case Function::kSoftmax:
      SoftmaxSlices(split, input, output, context.compute.pool);
      break;
    case Function::kLogSoftmax:
      LogSoftmaxSlices(split, input, output, context.compute.pool);
      break;
    case Function::kSoftmin: {
      // softmax(-x), as PyTorch computes it: negate into the output, normalise it in place.
      const size_t count = inputs[0]->size();
      for (size_t i = 0; i < count; ++i) output[i] = -input[i];
      SoftmaxSlices(split, output, output, context.compute.pool);
      break;
    }
  }
}

LUMEN_REGISTER_LAYER(Softmax, "nn.Softmax", "F.softmax", "torch.softmax", "Tensor.softmax");

}  // namespace lumen
