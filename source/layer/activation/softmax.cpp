// nn.Softmax / F.softmax: exp(x) / sum(exp(x)) along one dimension, computed stably.
#include "kernel/softmax.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// Softmax along any dimension, the batch (dim 0) included; the arithmetic is kernel/softmax.hpp's.
class Softmax : public Layer {
 public:
  // Reads dim.
  explicit Softmax(const LayerConfig& config);
  // The input's shape, after checking dim against its rank.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Locates dim in memory for these shapes.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override;
  // Normalises every slice along dim.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  int dim_ = 0;
};

namespace {

// Per session: the input seen as (outer, extent, inner) blocks around dim.
struct SoftmaxState : LayerState {
  AxisSplit split{0, 0, 0};
};

}  // namespace

Softmax::Softmax(const LayerConfig& config) : Layer(config), dim_(config.IntParam("dim")) {}

std::vector<Shape> Softmax::OutputShapes(const std::vector<Shape>& input_shapes) const {
  CheckInputCount(input_shapes, 1);
  const Shape& input = input_shapes[0];
  // A scalar is a 1-element vector to PyTorch, which accepts dim 0 or -1 for it.
  Axis(dim_, std::max<size_t>(input.size(), 1));
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
    state->split = SplitAroundAxis(input, Axis(dim_, input.size()));
  }
  return state;
}

void Softmax::Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
                      const ForwardContext& context) const {
  SoftmaxSlices(context.state_as<SoftmaxState>().split, inputs[0]->data(), outputs[0]->data(),
                context.compute.pool);
}

LUMEN_REGISTER_LAYER(Softmax, "nn.Softmax", "F.softmax", "torch.softmax", "Tensor.softmax");

}  // namespace lumen
