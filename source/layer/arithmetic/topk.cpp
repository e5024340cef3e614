// torch.topk: the k largest (or smallest) values along one dimension and their positions. Lumen
// tensors hold floats, so positions are written as float values (exact up to 2^24).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/thread_pool.hpp"
#include "layer/arithmetic/axis_lines.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {

// The k extreme values of every slice along dim, chosen and ordered exactly as PyTorch's CPU
// kernel does (the same standard algorithms on the same (value, position) pairs), so that even
// the order sorted=False leaves them in matches: a NaN counts as larger than every number.
class TopK : public Layer {
 public:
  // Reads k, dim (default -1), largest (default True) and sorted (default True).
  explicit TopK(const LayerConfig& config);
  // Two outputs, values and positions: the input's shape with dim's extent k.
  Shapes OutputShapes(const Shapes&) const override;
  // Plans the slices along dim and sizes one work list per thread.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Selects the k values of every slice.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;

 private:
  int k_ = 1;
  int dim_ = -1;
  bool largest_ = true;
  bool sorted_ = true;
};

namespace {

// A value and its position in its slice: what PyTorch's kernel sorts.
using Candidate = std::pair<float, int64_t>;

// Per session: the slices along dim, and one list of candidates per task (a task takes a run of
// slices), so that Forward allocates nothing.
struct TopKState : LayerState {
  AxisLines lines;
  std::vector<std::vector<Candidate>> candidates;  // [task], each of the slice's extent
  size_t bytes() const override { return candidates.size() * lines.extent * sizeof(Candidate); }
};

// PyTorch's order for largest=True: NaN first, then descending.
bool Larger(const Candidate& a, const Candidate& b) {
  return (std::isnan(a.first) && !std::isnan(b.first)) || a.first > b.first;
}

// PyTorch's order for largest=False: ascending, NaN last.
bool Smaller(const Candidate& a, const Candidate& b) {
  return (!std::isnan(a.first) && std::isnan(b.first)) || a.first < b.first;
}

// Puts the k first candidates of `order` at the front of `list`, as PyTorch's topk_impl_loop does:
// a partial sort when k is small against the extent, else nth_element and, if sorted, a sort of
// the first k - 1 (the k-th is in place already).
template <typename Order>
void SelectFirst(std::vector<Candidate>* list, size_t k, bool sorted, Order order) {
  const auto first = list->begin();
  if (k * 64 <= list->size()) {
    std::partial_sort(first, first + static_cast<std::ptrdiff_t>(k), list->end(), order);
    return;
  }
  std::nth_element(first, first + static_cast<std::ptrdiff_t>(k) - 1, list->end(), order);
  if (sorted) std::sort(first, first + static_cast<std::ptrdiff_t>(k) - 1, order);
}

}  // namespace

TopK::TopK(const LayerConfig& config) : Layer(config) {
  k_ = config.IntParam("k");
  dim_ = config.IntParam("dim", -1);
  largest_ = config.BoolParam("largest", true);
  sorted_ = config.BoolParam("sorted", true);
  if (k_ < 0) Fail(Concat("k must be at least 0, got ", k_));
}

Shapes TopK::OutputShapes(const Shapes& input_shapes) const {
  CheckInputCount(input_shapes, 1);
  const Shape& input = input_shapes[0];
  // A scalar is a 1-element vector to PyTorch, which accepts dim 0 or -1 for it.
  const size_t axis = Axis(dim_, std::max<size_t>(input.size(), 1));
  const size_t extent = input.empty() ? 1 : input[axis];
  if (static_cast<size_t>(k_) > extent) {
    Fail(Concat("k = ", k_, " is larger than dim ", dim_, "'s extent ", extent, " in the input ",
                ShapeToString(input)));
  }
  Shape output = input;
  if (!output.empty()) output[axis] = static_cast<uint32_t>(k_);
  return {output, output};
}

StatePointer TopK::Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                           const PrepareContext& context) const {
  auto state = std::make_unique<TopKState>();
  const Shape& input = input_shapes[0];
  if (input.empty()) {
    state->lines = MakeAxisLines(Shape{1}, 0, Shape{1}, true);  // a 1-element vector
  } else {
    state->lines = MakeAxisLines(input, Axis(dim_, input.size()), output_shapes[0], true);
  }
  state->candidates.assign(static_cast<size_t>(std::max(context.threads, 1)),
                           std::vector<Candidate>(state->lines.extent));
  return state;
}

void TopK::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                   const ForwardContext& context) const {
  TopKState& state = context.state_as<TopKState>();
  const AxisLines& lines = state.lines;
  if (k_ == 0 || lines.count == 0) return;
  const float* source = inputs[0]->data();
  float* values = outputs[0]->data();
  float* positions = outputs[1]->data();
  const size_t k = static_cast<size_t>(k_);
  const size_t tasks = state.candidates.size();
  ParallelFor(
      context.compute.pool, static_cast<std::ptrdiff_t>(tasks),
      [&](std::ptrdiff_t task) {
        std::vector<Candidate>& list = state.candidates[static_cast<size_t>(task)];
        const size_t begin = lines.count * static_cast<size_t>(task) / tasks;
        const size_t end = lines.count * static_cast<size_t>(task + 1) / tasks;
        for (size_t line = begin; line < end; ++line) {
          size_t input_base = 0, output_base = 0;
          lines.Locate(line, &input_base, &output_base);
          for (size_t e = 0; e < lines.extent; ++e) {
            list[e] = {source[input_base + e * lines.input_step], static_cast<int64_t>(e)};
          }
          if (largest_) {
            SelectFirst(&list, k, sorted_, Larger);
          } else {
            SelectFirst(&list, k, sorted_, Smaller);
          }
          for (size_t j = 0; j < k; ++j) {
            values[output_base + j * lines.output_step] = list[j].first;
            positions[output_base + j * lines.output_step] = static_cast<float>(list[j].second);
          }
        }
      },
      Schedule::kStatic, inputs[0]->size() >= (1 << 15));
}

LUMEN_REGISTER_LAYER(TopK, "torch.topk", "Tensor.topk");

}  // namespace lumen
