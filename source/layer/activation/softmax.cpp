// nn.Softmax / F.softmax: exp(x) / sum(exp(x)) along one dimension, computed stably.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "base/thread_pool.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// Softmax along any dimension, the batch (dim 0) included. Subtracting each slice's maximum
// before exp keeps every exponent <= 0, so nothing overflows (softmax is unchanged by a shift).
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

// Below this many elements the slices are normalised on one thread.
constexpr size_t kParallelElements = 1 << 14;

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
  // LESSON 12 BEGIN: subtract each slice's maximum, exponentiate, divide by the sum (along dim)
  const AxisSplit& split = context.state_as<SoftmaxState>().split;
  // Elements of one softmax slice are `inner` apart. Work on up to kLanes neighbouring slices at
  // once, so the inner loops run over contiguous memory and the scratch lives on the stack.
  constexpr size_t kLanes = 256;
  const size_t extent = split.extent;
  const size_t inner = split.inner;
  const size_t lane_groups = (inner + kLanes - 1) / kLanes;
  const auto tasks = static_cast<std::ptrdiff_t>(split.outer * lane_groups);
  const float* source = inputs[0]->data();
  float* target = outputs[0]->data();
  ParallelFor(
      context.compute.pool, tasks,
      [&](std::ptrdiff_t task) {
        const size_t block = static_cast<size_t>(task) / lane_groups;
        const size_t first = static_cast<size_t>(task) % lane_groups * kLanes;
        const size_t lanes = std::min(kLanes, inner - first);
        const size_t base = block * extent * inner + first;
        float maximum[kLanes];
        float sum[kLanes];
        std::fill(maximum, maximum + lanes, -INFINITY);
        std::fill(sum, sum + lanes, 0.0f);
        for (size_t e = 0; e < extent; ++e) {
          const float* row = source + base + e * inner;
          for (size_t lane = 0; lane < lanes; ++lane) {
            maximum[lane] = std::max(maximum[lane], row[lane]);
          }
        }
        for (size_t e = 0; e < extent; ++e) {
          const float* row = source + base + e * inner;
          float* out = target + base + e * inner;
          for (size_t lane = 0; lane < lanes; ++lane) {
            out[lane] = std::exp(row[lane] - maximum[lane]);
            sum[lane] += out[lane];
          }
        }
        for (size_t e = 0; e < extent; ++e) {
          float* out = target + base + e * inner;
          for (size_t lane = 0; lane < lanes; ++lane) out[lane] /= sum[lane];
        }
      },
      Schedule::kStatic, split.outer * extent * inner >= kParallelElements);
  // LESSON 12 END
}

LUMEN_REGISTER_LAYER(Softmax, "nn.Softmax", "F.softmax", "torch.softmax", "Tensor.softmax");

}  // namespace lumen
