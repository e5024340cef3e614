// torch.cumsum / torch.cumprod: the running sum or product along one dimension.
#include "kernel/scan.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// A cumulative sum or product along any dimension, the batch (dim 0) included; the arithmetic is
// kernel/scan.hpp's. The output has the input's shape (dtype, if given, is float as every Lumen
// tensor is).
class Scan : public Layer {
 public:
  // Reads dim; the op type decides sum or product.
  explicit Scan(const LayerConfig& config);
  // The input's shape, after checking dim against its rank.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Locates dim in memory for these shapes.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override;
  // Scans every slice along dim.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  ScanKind kind_ = ScanKind::kSum;
  int dim_ = 0;
};

namespace {

// Per session: the input seen as (outer, extent, inner) blocks around dim.
struct ScanState : LayerState {
  AxisSplit split{0, 0, 0};
};

}  // namespace

Scan::Scan(const LayerConfig& config) : Layer(config), dim_(config.IntParam("dim")) {
  if (config.type().find("cumprod") != std::string::npos) kind_ = ScanKind::kProduct;
}

std::vector<Shape> Scan::OutputShapes(const std::vector<Shape>& input_shapes) const {
  CheckInputCount(input_shapes, 1);
  const Shape& input = input_shapes[0];
  // A scalar is a 1-element vector to PyTorch, which accepts dim 0 or -1 for it.
  Axis(dim_, std::max<size_t>(input.size(), 1));
  return {input};
}

std::unique_ptr<LayerState> Scan::Prepare(const std::vector<Shape>& input_shapes,
                                          const std::vector<Shape>& /*output_shapes*/,
                                          const PrepareContext& /*context*/) const {
  auto state = std::make_unique<ScanState>();
  const Shape& input = input_shapes[0];
  if (ShapeElementCount(input) == 0) return state;  // nothing to scan
  if (input.empty()) {
    state->split = AxisSplit{1, 1, 1};
  } else {
    state->split = SplitAroundAxis(input, Axis(dim_, input.size()));
  }
  return state;
}

void Scan::Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
                   const ForwardContext& context) const {
  CumulativeScan(kind_, context.state_as<ScanState>().split, inputs[0]->data(), outputs[0]->data(),
                 context.compute.pool);
}

LUMEN_REGISTER_LAYER(Scan, "torch.cumsum", "Tensor.cumsum", "torch.cumprod", "Tensor.cumprod");

}  // namespace lumen
