// torch.cumsum / torch.cumprod: the running sum or product along one dimension.
#include "kernel/scan.hpp"

#include <string>
#include <vector>

#include "layer/layer_registry.hpp"
#include "layer/slicewise_layer.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// A cumulative sum or product along any dimension, the batch (dim 0) included; the arithmetic is
// kernel/scan.hpp's. The output has the input's shape (dtype, if given, is float as every Lumen
// tensor is).
class Scan : public SlicewiseLayer {
 public:
  // Reads dim; the op type decides sum or product.
  explicit Scan(const LayerConfig& config);
  // Scans every slice along dim.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;

 protected:
  // dim, for an input of `rank`.
  size_t SlicedAxis(size_t rank) const override { return AxisOrScalar(dim_, rank); }

 private:
  ScanKind kind_ = ScanKind::kSum;
  int dim_ = 0;
};

Scan::Scan(const LayerConfig& config) : SlicewiseLayer(config), dim_(config.IntParam("dim")) {
  if (config.type().find("cumprod") != std::string::npos) kind_ = ScanKind::kProduct;
}

void Scan::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                   const ForwardContext& context) const {
  CumulativeScan(kind_, SplitOf(context), inputs[0]->data(), outputs[0]->data(),
                 context.compute.pool);
}

LUMEN_REGISTER_LAYER(Scan, "torch.cumsum", "Tensor.cumsum", "torch.cumprod", "Tensor.cumprod");

}  // namespace lumen
