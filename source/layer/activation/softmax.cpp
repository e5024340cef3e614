// nn.Softmax / F.softmax: exp(x) / sum(exp(x)) along one dimension, computed stably; the same
// layer, with another Function, is nn.LogSoftmax, nn.Softmin and nn.Softmax2d (their own files).
#include "layer/activation/softmax.hpp"

#include <vector>

#include "kernel/softmax.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// The dim the operator's parameter gives, or `implicit` when it is None or absent.
int DimParam(const LayerConfig& config, int implicit) {
  if (!config.HasParam("dim") || config.Param("dim").IsNone()) return implicit;
  return config.IntParam("dim");
}

}  // namespace

Softmax::Softmax(const LayerConfig& config) : Softmax(config, Function::kSoftmax, kDimFromConfig) {}

Softmax::Softmax(const LayerConfig& config, Function function, int dim)
    : SlicewiseLayer(config), function_(function) {
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

size_t Softmax::SlicedAxis(size_t rank) const {
  if (dim_ == kImplicitDim) return rank == 0 || rank == 1 || rank == 3 ? 0 : 1;
  return AxisOrScalar(dim_, rank);
}

void Softmax::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                      const ForwardContext& context) const {
  const AxisSplit& split = SplitOf(context);
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
