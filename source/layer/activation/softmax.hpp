// The softmax family: nn.Softmax, nn.LogSoftmax, nn.Softmin and nn.Softmax2d normalise every
// slice of their input along one dimension with the kernels of kernel/softmax.hpp.
#ifndef LUMEN_LAYER_ACTIVATION_SOFTMAX_HPP_
#define LUMEN_LAYER_ACTIVATION_SOFTMAX_HPP_

#include <memory>
#include <vector>

#include "layer/slicewise_layer.hpp"

namespace lumen {

// Softmax-like normalisation along any dimension, the batch (dim 0) included.
class Softmax : public SlicewiseLayer {
 public:
  // What a slice is written as.
  enum class Function {
    kSoftmax,     // exp(x) / sum(exp(x))
    kLogSoftmax,  // log(softmax(x))
    kSoftmin,     // softmax(-x)
  };

  // nn.Softmax: reads dim (None or absent: PyTorch's implicit dim, 0 for ranks 0, 1 and 3, else 1).
  explicit Softmax(const LayerConfig& config);
  // Normalises every slice along dim.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;
  // For the softmax itself along an explicit dim (not its log, softmin or PyTorch's implicit dim).
  bool SoftmaxAlong(int* dim) const override;

 protected:
  // The other members of the family: `function` along `dim` (read from the config as nn.Softmax
  // does when `dim` is kDimFromConfig).
  Softmax(const LayerConfig& config, Function function, int dim);

  // Marks a dim read from the operator's `dim` parameter.
  static constexpr int kDimFromConfig = 1 << 30;

  // The dimension normalised for an input of `rank` (0 for a rank-0 input).
  size_t SlicedAxis(size_t rank) const override;

 private:
  // Marks PyTorch's implicit dim (dim=None).
  static constexpr int kImplicitDim = -(1 << 30);

  Function function_ = Function::kSoftmax;
  int dim_ = 0;
};

// A member of the family with a fixed function and nn.Softmax's dim parameter: the layer
// nn.LogSoftmax and nn.Softmin register (log_softmax.cpp, softmin.cpp).
template <Softmax::Function kFunction>
class SoftmaxWithFunction : public Softmax {
 public:
  // Reads dim.
  explicit SoftmaxWithFunction(const LayerConfig& config)
      : Softmax(config, kFunction, kDimFromConfig) {}
};

}  // namespace lumen

#endif  // LUMEN_LAYER_ACTIVATION_SOFTMAX_HPP_
