// F.pairwise_distance: ||x1 - x2 + eps||_p along the last dimension, as PyTorch computes it (p any
// float: 0 counts the non-zero differences, inf takes the largest); x1 and x2 broadcast, and
// keepdim keeps the last dimension with extent 1.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "base/thread_pool.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/broadcast.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// The p-norm of the difference of two broadcast operands along their last dimension.
class PairwiseDistance : public Layer {
 public:
  // Reads p (default 2), eps (default 1e-6) and keepdim.
  explicit PairwiseDistance(const LayerConfig& config)
      : Layer(config),
        p_(config.FloatParam("p", 2.0f)),
        eps_(config.FloatParam("eps", 1e-6f)),
        keepdim_(config.BoolParam("keepdim", false)) {
    if (std::isnan(p_) || p_ < 0.0f) Fail(Concat("p must be a non-negative number, got ", p_));
  }

  // The broadcast shape of x1 and x2 without its last dimension (with extent 1 if keepdim).
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 2);
    Shape shape;
    try {
      shape = BroadcastShapes(input_shapes[0], input_shapes[1]);
    } catch (const Error&) {
      Fail(Concat("x1 ", ShapeToString(input_shapes[0]), " and x2 ", ShapeToString(input_shapes[1]),
                  " cannot be broadcast together"));
    }
    if (shape.empty()) Fail("expected operands of at least one dimension, got two scalars");
    if (keepdim_) {
      shape.back() = 1;
    } else {
      shape.pop_back();
    }
    return {shape};
  }

  // The operands' and the result's steps along every dimension of the broadcast shape.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                       const PrepareContext& /*context*/) const override {
    auto state = std::make_unique<State>();
    const Shape full = BroadcastShapes(input_shapes[0], input_shapes[1]);
    state->extents.assign(full.begin(), full.end());
    for (size_t operand = 0; operand < 2; ++operand) {
      const Shape& shape = input_shapes[operand];
      const std::vector<size_t> strides = StorageStrides(shape);
      std::vector<std::ptrdiff_t>& steps = state->operand_steps[operand];
      steps.assign(full.size(), 0);
      // Dimensions align at the right; a missing or size-1 one is broadcast (step 0).
      for (size_t dim = 0; dim < shape.size(); ++dim) {
        const size_t own = full.size() - shape.size() + dim;
        if (shape[dim] != 1) steps[own] = static_cast<std::ptrdiff_t>(strides[dim]);
      }
    }
    const std::vector<size_t> output_strides = StorageStrides(output_shapes[0]);
    state->output_steps.assign(full.size(), 0);
    for (size_t dim = 0; dim + 1 < full.size(); ++dim) {
      state->output_steps[dim] = static_cast<std::ptrdiff_t>(output_strides[dim]);
    }
    return state;
  }

  // One norm per output element.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const State& state = context.state_as<State>();
    const std::vector<size_t>& extents = state.extents;
    const size_t rank = extents.size();
    const size_t length = extents.back();
    size_t count = 1;
    for (size_t dim = 0; dim + 1 < rank; ++dim) count *= extents[dim];
    const float* x1 = inputs[0]->data();
    const float* x2 = inputs[1]->data();
    float* output = outputs[0]->data();
    const std::ptrdiff_t step1 = state.operand_steps[0][rank - 1];
    const std::ptrdiff_t step2 = state.operand_steps[1][rank - 1];
    ParallelFor(
        context.compute.pool, static_cast<std::ptrdiff_t>(count),
        [&](std::ptrdiff_t element) {
          // The element's offsets, from its row-major index over the leading dimensions.
          std::ptrdiff_t offsets[3] = {0, 0, 0};
          size_t rest = static_cast<size_t>(element);
          for (size_t dim = rank - 1; dim-- > 0;) {
            const auto index = static_cast<std::ptrdiff_t>(rest % extents[dim]);
            rest /= extents[dim];
            offsets[0] += index * state.operand_steps[0][dim];
            offsets[1] += index * state.operand_steps[1][dim];
            offsets[2] += index * state.output_steps[dim];
          }
          output[offsets[2]] = Norm(x1 + offsets[0], step1, x2 + offsets[1], step2, length);
        },
        Schedule::kStatic, count * length >= (1 << 14));
  }

 private:
  struct State : LayerState {
    std::vector<size_t> extents;                   // the broadcast shape
    std::vector<std::ptrdiff_t> operand_steps[2];  // per dimension; 0 where broadcast
    std::vector<std::ptrdiff_t> output_steps;      // per leading dimension
  };

  // ||a - b + eps||_p over `length` elements read with the given steps.
  float Norm(const float* a, std::ptrdiff_t a_step, const float* b, std::ptrdiff_t b_step,
             size_t length) const {
    float result = 0.0f;
    if (p_ == 0.0f) {
      for (size_t i = 0; i < length; ++i) result += (a[i * a_step] - b[i * b_step] + eps_) != 0.0f;
      return result;
    }
    if (std::isinf(p_)) {
      for (size_t i = 0; i < length; ++i) {
        result = std::max(result, std::fabs(a[i * a_step] - b[i * b_step] + eps_));
      }
      return result;
    }
    for (size_t i = 0; i < length; ++i) {
      const float difference = std::fabs(a[i * a_step] - b[i * b_step] + eps_);
      result += p_ == 1.0f   ? difference
                : p_ == 2.0f ? difference * difference
                             : std::pow(difference, p_);
    }
    return p_ == 1.0f ? result : p_ == 2.0f ? std::sqrt(result) : std::pow(result, 1.0f / p_);
  }

  float p_;
  float eps_;
  bool keepdim_;
};

LUMEN_REGISTER_LAYER(PairwiseDistance, "F.pairwise_distance");

}  // namespace lumen
