// torch.sum / torch.mean / torch.amax / torch.amin over one or more dimensions (or all of them),
// with or without keepdim.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "base/thread_pool.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// Sums (and for mean divides), or takes the largest or smallest value, over the reduced
// dimensions, any of them, the batch (dim 0) included. Each output element is accumulated by one
// task (sums in double precision), so the work spreads over threads without two tasks writing
// into the same place. Reducing every dimension gives a rank-0 tensor, as in PyTorch.
class Reduction : public Layer {
 public:
  // What an output element is: the sum, the mean, the largest or the smallest of its inputs.
  enum class Kind { kSum, kMean, kMax, kMin };

  // Reads dim (an int, a list, or absent/None/() for every dimension) and keepdim; the op type
  // decides the kind.
  explicit Reduction(const LayerConfig& config);
  // The input's shape without the reduced dimensions (or with them as 1 under keepdim).
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Plans the walk over input and output memory for these shapes.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override;
  // Reduces every output element.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  // For each dimension of `input`, whether it is reduced; throws lumen::Error naming the layer
  // when a dim is out of range or listed twice.
  std::vector<bool> ReducedAxes(const Shape& input) const;

  // Runs the planned walk, combining input values with `accumulator` (see reduction.cpp).
  template <typename Accumulator>
  void Reduce(const Accumulator& accumulator, const Tensor& input, Tensor* output,
              const ForwardContext& context) const;

  Kind kind_ = Kind::kSum;
  bool all_dims_ = false;  // no dim given: reduce everything
  std::vector<int> dims_;
  bool keepdim_ = false;
};

namespace {

// One dimension of the walk: its extent and its memory strides in the input and the output.
struct WalkDim {
  size_t extent = 1;
  size_t input_stride = 0;
  size_t output_stride = 0;
};

// Per session: the walk over the input for these shapes.
//
// The input's fastest dimension in memory (stride 1) decides the inner loop. When it is kept, a
// task reduces up to kLanes neighbouring output elements at once, adding contiguous runs of the
// input; when it is reduced, a task reduces one output element, summing contiguous runs.
struct ReductionState : LayerState {
  bool fastest_kept = true;
  WalkDim fastest;               // the input's stride-1 dimension (extent 1 if there is none)
  std::vector<WalkDim> kept;     // the other kept dimensions, outermost first
  std::vector<WalkDim> reduced;  // the other reduced dimensions, outermost first
  size_t outer_outputs = 1;      // product of the extents in `kept`
  size_t reduced_count = 1;      // input elements that make up one output element
  size_t reduced_runs = 1;       // product of the extents in `reduced`
};

// Output elements one task reduces when the fastest dimension is kept.
constexpr size_t kLanes = 64;
// Below this many input elements the reduction runs on one thread.
constexpr size_t kParallelElements = 1 << 15;

// Moves the odometer `counters` over `dims` one step (the last dimension fastest), keeping
// `offset` the input offset of the position.
inline void Advance(const std::vector<WalkDim>& dims, size_t* counters, size_t* offset) {
  for (size_t d = dims.size(); d-- > 0;) {
    *offset += dims[d].input_stride;
    if (++counters[d] < dims[d].extent) return;
    *offset -= dims[d].input_stride * dims[d].extent;
    counters[d] = 0;
  }
}

}  // namespace

Reduction::Reduction(const LayerConfig& config) : Layer(config) {
  const std::string& type = config.type();
  if (type == "torch.mean" || type == "Tensor.mean") kind_ = Kind::kMean;
  if (type == "torch.amax") kind_ = Kind::kMax;
  if (type == "torch.amin") kind_ = Kind::kMin;
  keepdim_ = config.BoolParam("keepdim", false);
  if (!config.HasParam("dim") || config.Param("dim").IsNone()) {
    all_dims_ = true;
    return;
  }
  const Parameter& dim = config.Param("dim");
  dims_ = dim.type() == Parameter::Type::kInt ? std::vector<int>{dim.AsInt()}
                                              : config.IntArrayParam("dim");
  // An empty list reduces everything: torch.amax(x, dim=()) is amax's default, and
  // torch.sum(x, dim=[]) means the same in the PyTorch these models come from.
  all_dims_ = dims_.empty();
}

std::vector<bool> Reduction::ReducedAxes(const Shape& input) const {
  std::vector<bool> reduced(input.size(), all_dims_);
  for (int dim : dims_) {
    // A scalar is a 1-element vector to PyTorch, which accepts dim 0 or -1 for it.
    const size_t axis = Axis(dim, std::max<size_t>(input.size(), 1));
    if (input.empty()) continue;
    if (reduced[axis]) Fail(Concat("dim ", dim, " is listed twice"));
    reduced[axis] = true;
  }
  return reduced;
}

std::vector<Shape> Reduction::OutputShapes(const std::vector<Shape>& input_shapes) const {
  CheckInputCount(input_shapes, 1);
  const Shape& input = input_shapes[0];
  if (input.size() > kMaxRank) {
    Fail(Concat("input ", ShapeToString(input), " has a rank above ", kMaxRank));
  }
  const std::vector<bool> reduced = ReducedAxes(input);
  Shape output;
  for (size_t axis = 0; axis < input.size(); ++axis) {
    if (reduced[axis] && input[axis] == 0 && (kind_ == Kind::kMax || kind_ == Kind::kMin)) {
      Fail(Concat("dim ", axis, " of the input ", ShapeToString(input),
                  " is empty: it has no largest or smallest value"));
    }
    if (!reduced[axis]) {
      output.push_back(input[axis]);
    } else if (keepdim_) {
      output.push_back(1);
    }
  }
  return {output};
}

std::unique_ptr<LayerState> Reduction::Prepare(const std::vector<Shape>& input_shapes,
                                               const std::vector<Shape>& output_shapes,
                                               const PrepareContext& /*context*/) const {
  const Shape& input = input_shapes[0];
  const std::vector<bool> reduced = ReducedAxes(input);
  const std::vector<size_t> input_strides = StorageStrides(input);
  const std::vector<size_t> output_strides = StorageStrides(output_shapes[0]);
  auto state = std::make_unique<ReductionState>();
  // Every input dimension with its strides, in memory order (outermost first); extents of 1
  // change nothing and are left out.
  std::vector<std::pair<WalkDim, bool>> dims;  // (dimension, reduced)
  size_t output_axis = 0;
  for (size_t axis = 0; axis < input.size(); ++axis) {
    WalkDim dim{input[axis], input_strides[axis], 0};
    if (!reduced[axis] || keepdim_) {
      if (!reduced[axis]) dim.output_stride = output_strides[output_axis];
      ++output_axis;
    }
    if (reduced[axis]) state->reduced_count *= dim.extent;
    if (dim.extent != 1) dims.emplace_back(dim, reduced[axis]);
  }
  std::stable_sort(dims.begin(), dims.end(), [](const auto& a, const auto& b) {
    return a.first.input_stride > b.first.input_stride;
  });
  if (!dims.empty()) {
    state->fastest = dims.back().first;
    state->fastest_kept = !dims.back().second;
    dims.pop_back();
  }
  for (const auto& [dim, is_reduced] : dims) {
    if (is_reduced) {
      state->reduced.push_back(dim);
      state->reduced_runs *= dim.extent;
    } else {
      state->kept.push_back(dim);
      state->outer_outputs *= dim.extent;
    }
  }
  return state;
}

namespace {

// How values combine into one output element. An accumulator has a Value type (what a running
// result is kept in), Start() (the result of no values), Add(result, value) and Finish(result),
// the float written out. Reduce below is written once for all of them.

// Sum in double precision (so that long sums lose nothing), times `scale` (1/count for a mean).
struct SumAccumulator {
  using Value = double;
  double scale = 1.0;
  static double Start() { return 0.0; }
  static void Add(double& sum, float value) { sum += value; }
  float Finish(double sum) const { return static_cast<float>(sum * scale); }
};

// The largest value; a NaN anywhere wins, as in PyTorch (once `result` is NaN no comparison is
// true, so it stays NaN).
struct MaxAccumulator {
  using Value = float;
  static float Start() { return -std::numeric_limits<float>::infinity(); }
  static void Add(float& result, float value) {
    if (value > result || std::isnan(value)) result = value;
  }
  static float Finish(float result) { return result; }
};

// The smallest value; NaN wins as for the largest.
struct MinAccumulator {
  using Value = float;
  static float Start() { return std::numeric_limits<float>::infinity(); }
  static void Add(float& result, float value) {
    if (value < result || std::isnan(value)) result = value;
  }
  static float Finish(float result) { return result; }
};

}  // namespace

void Reduction::Forward(const std::vector<const Tensor*>& inputs,
                        const std::vector<Tensor*>& outputs, const ForwardContext& context) const {
  const ReductionState& state = context.state_as<ReductionState>();
  Tensor& output = *outputs[0];
  if (output.empty()) return;
  switch (kind_) {
    case Kind::kSum:
    case Kind::kMean:
      if (state.reduced_count == 0) {  // an empty sum is 0, a mean of nothing NaN, as in PyTorch
        output.Fill(kind_ == Kind::kMean ? std::numeric_limits<float>::quiet_NaN() : 0.0f);
        return;
      }
      Reduce(SumAccumulator{kind_ == Kind::kMean ? 1.0 / static_cast<double>(state.reduced_count)
                                                 : 1.0},
             *inputs[0], &output, context);
      return;
    case Kind::kMax:
      Reduce(MaxAccumulator{}, *inputs[0], &output, context);
      return;
    case Kind::kMin:
      Reduce(MinAccumulator{}, *inputs[0], &output, context);
      return;
  }
}

template <typename Accumulator>
void Reduction::Reduce(const Accumulator& accumulator, const Tensor& input, Tensor* output,
                       const ForwardContext& context) const {
  using Value = typename Accumulator::Value;
  const ReductionState& state = context.state_as<ReductionState>();
  const float* source = input.data();
  float* target = output->data();
  // Where output position `outer` (an index over state.kept) starts in the input and the output.
  const auto locate = [&state](size_t outer, size_t* input_base, size_t* output_base) {
    *input_base = 0;
    *output_base = 0;
    for (size_t d = state.kept.size(); d-- > 0;) {
      const size_t index = outer % state.kept[d].extent;
      outer /= state.kept[d].extent;
      *input_base += index * state.kept[d].input_stride;
      *output_base += index * state.kept[d].output_stride;
    }
  };
  const bool parallel = input.size() >= kParallelElements;
  if (state.fastest_kept) {
    const size_t lanes_total = state.fastest.extent;
    const size_t lane_groups = (lanes_total + kLanes - 1) / kLanes;
    ParallelFor(
        context.compute.pool, static_cast<std::ptrdiff_t>(state.outer_outputs * lane_groups),
        [&](std::ptrdiff_t task) {
          size_t input_base = 0, output_base = 0;
          locate(static_cast<size_t>(task) / lane_groups, &input_base, &output_base);
          const size_t first = static_cast<size_t>(task) % lane_groups * kLanes;
          const size_t lanes = std::min(kLanes, lanes_total - first);
          Value results[kLanes];
          std::fill(results, results + lanes, Accumulator::Start());
          size_t counters[kMaxRank] = {};
          size_t offset = input_base + first;
          for (size_t run = 0; run < state.reduced_runs; ++run) {
            const float* values = source + offset;
            for (size_t lane = 0; lane < lanes; ++lane)
              Accumulator::Add(results[lane], values[lane]);
            Advance(state.reduced, counters, &offset);
          }
          const size_t step = state.fastest.output_stride;
          for (size_t lane = 0; lane < lanes; ++lane) {
            target[output_base + (first + lane) * step] = accumulator.Finish(results[lane]);
          }
        },
        Schedule::kStatic, parallel);
    return;
  }
  const size_t run_length = state.fastest.extent;
  ParallelFor(
      context.compute.pool, static_cast<std::ptrdiff_t>(state.outer_outputs),
      [&](std::ptrdiff_t outer) {
        size_t input_base = 0, output_base = 0;
        locate(static_cast<size_t>(outer), &input_base, &output_base);
        Value result = Accumulator::Start();
        size_t counters[kMaxRank] = {};
        size_t offset = input_base;
        for (size_t run = 0; run < state.reduced_runs; ++run) {
          const float* values = source + offset;
          for (size_t i = 0; i < run_length; ++i) Accumulator::Add(result, values[i]);
          Advance(state.reduced, counters, &offset);
        }
        target[output_base] = accumulator.Finish(result);
      },
      Schedule::kStatic, parallel);
}

LUMEN_REGISTER_LAYER(Reduction, "torch.mean", "Tensor.mean", "torch.sum", "Tensor.sum",
                     "torch.amax", "torch.amin");

}  // namespace lumen
