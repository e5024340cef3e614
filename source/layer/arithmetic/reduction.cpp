// torch.sum / torch.mean / torch.amax / torch.amin / torch.prod / torch.norm / torch.std /
// torch.var / torch.logsumexp over one or more dimensions (or all of them), with or without
// keepdim: one walk over the input, with an accumulator per op saying how values combine.
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

// Combines the values over the reduced dimensions, any of them, the batch (dim 0) included: a sum,
// mean, largest or smallest value, product, p-norm, standard deviation or variance, or log of the
// sum of exponentials. Each output element is accumulated by one task (in double precision), so
// the work spreads over threads without two tasks writing into the same place. Reducing every
// dimension gives a rank-0 tensor, as in PyTorch.
class Reduction : public Layer {
 public:
  // What an output element is: the sum, the mean, the largest or the smallest of its inputs.
  enum class Kind { kSum, kMean, kMax, kMin, kProd, kNorm, kStd, kVar, kLogSumExp };

  // Reads dim (an int, a list, or absent/None/() for every dimension) and keepdim; the op type
  // decides the kind; torch.norm reads p, torch.std and torch.var unbiased or correction.
  explicit Reduction(const LayerConfig& config);
  // The input's shape without the reduced dimensions (or with them as 1 under keepdim).
  Shapes OutputShapes(const Shapes&) const override;
  // Plans the walk over input and output memory for these shapes.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Reduces every output element.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;
  // For a mean over named dims (not every dimension): those dims and keepdim.
  bool MeanOverDimensions(std::vector<int>* dims, bool* keepdim) const override {
    if (kind_ != Kind::kMean || all_dims_) return false;
    *dims = dims_;
    *keepdim = keepdim_;
    return true;
  }

 private:
  // For each dimension of `input`, whether it is reduced; throws lumen::Error naming the layer
  // when a dim is out of range or listed twice.
  std::vector<bool> ReducedAxes(const Shape& input) const;

  // Runs the planned walk, combining input values with `accumulator` (see reduction.cpp).
  template <typename Accumulator>
  void Reduce(const Accumulator& accumulator, const Tensor& input, Tensor* output,
              const ForwardContext& context) const;

  // True when an output element is the largest or smallest (absolute) value of its inputs, which
  // an empty reduction does not have.
  bool SelectsAValue() const;

  Kind kind_ = Kind::kSum;
  float norm_order_ = 2.0f;  // torch.norm's p ('fro' is 2)
  float correction_ = 1.0f;  // torch.std/var: the divisor is count - correction
  bool all_dims_ = false;    // no dim given: reduce everything
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
  if (type == "torch.prod" || type == "Tensor.prod") kind_ = Kind::kProd;
  if (type == "torch.logsumexp" || type == "Tensor.logsumexp") kind_ = Kind::kLogSumExp;
  if (type == "torch.norm" || type == "Tensor.norm") {
    kind_ = Kind::kNorm;
    const Parameter& order = config.HasParam("p") ? config.Param("p") : Parameter();
    if (order.type() == Parameter::Type::kString && order.AsString() == "nuc") {
      Fail("p='nuc' (the nuclear norm, a sum of singular values) is not supported");
    }
    if (order.type() == Parameter::Type::kInt || order.type() == Parameter::Type::kFloat) {
      norm_order_ = order.AsFloat();
    } else if (!order.IsNone() &&
               !(order.type() == Parameter::Type::kString && order.AsString() == "fro")) {
      Fail(Concat("p must be a number, inf, -inf or 'fro', got '", order.text(), "'"));
    }
  }
  if (type == "torch.std" || type == "Tensor.std" || type == "torch.var" || type == "Tensor.var") {
    kind_ = type.find("std") != std::string::npos ? Kind::kStd : Kind::kVar;
    // correction (PyTorch 2) wins over unbiased (its older spelling: True is correction 1).
    if (config.HasParam("correction") && !config.Param("correction").IsNone()) {
      correction_ = config.FloatParam("correction");
    } else {
      correction_ = config.BoolParam("unbiased", true) ? 1.0f : 0.0f;
    }
  }
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

bool Reduction::SelectsAValue() const {
  return kind_ == Kind::kMax || kind_ == Kind::kMin ||
         (kind_ == Kind::kNorm && std::isinf(norm_order_));
}

Shapes Reduction::OutputShapes(const Shapes& input_shapes) const {
  CheckInputCount(input_shapes, 1);
  const Shape& input = input_shapes[0];
  if (input.size() > kMaxRank) {
    Fail(Concat("input ", ShapeToString(input), " has a rank above ", kMaxRank));
  }
  const std::vector<bool> reduced = ReducedAxes(input);
  Shape output;
  for (size_t axis = 0; axis < input.size(); ++axis) {
    if (reduced[axis] && input[axis] == 0 && SelectsAValue()) {
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

StatePointer Reduction::Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
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

// The largest or smallest absolute value: torch.norm with p = inf or -inf.
template <typename Extremum>
struct AbsoluteAccumulator {
  using Value = float;
  static float Start() { return Extremum::Start(); }
  static void Add(float& result, float value) { Extremum::Add(result, std::fabs(value)); }
  static float Finish(float result) { return result; }
};

// The product, in double precision; the product of nothing is 1.
struct ProductAccumulator {
  using Value = double;
  static double Start() { return 1.0; }
  static void Add(double& product, float value) { product *= value; }
  static float Finish(double product) { return static_cast<float>(product); }
};

// torch.norm's p-norm for a finite p: (sum |x|^p)^(1/p), with 2 (also 'fro') and 1 spelled out,
// and p = 0 counting the nonzero values, as PyTorch defines it.
struct PowerSumAccumulator {
  using Value = double;
  double order = 2.0;
  static double Start() { return 0.0; }
  void Add(double& sum, float value) const {
    if (order == 2.0) {
      sum += static_cast<double>(value) * value;
    } else if (order == 1.0) {
      sum += std::fabs(value);
    } else if (order == 0.0) {
      sum += value != 0.0f ? 1.0 : 0.0;
    } else {
      sum += std::pow(std::fabs(static_cast<double>(value)), order);
    }
  }
  float Finish(double sum) const {
    if (order == 2.0) return static_cast<float>(std::sqrt(sum));
    if (order == 1.0 || order == 0.0) return static_cast<float>(sum);
    return static_cast<float>(std::pow(sum, 1.0 / order));
  }
};

// Variance (or its square root, the standard deviation) by Welford's running mean, which stays
// accurate where the sum of squares minus the squared sum would cancel. The divisor is
// max(count - correction, 0), as in PyTorch: no degrees of freedom give inf or NaN.
struct MomentsAccumulator {
  struct Value {
    double count;
    double mean;
    double squares;  // sum of squared distances from the running mean
  };
  double correction = 1.0;
  bool square_root = true;
  static Value Start() { return {0.0, 0.0, 0.0}; }
  static void Add(Value& moments, float value) {
    moments.count += 1.0;
    const double delta = value - moments.mean;
    moments.mean += delta / moments.count;
    moments.squares += delta * (value - moments.mean);
  }
  float Finish(const Value& moments) const {
    const double variance = moments.squares / std::max(moments.count - correction, 0.0);
    return static_cast<float>(square_root ? std::sqrt(variance) : variance);
  }
};

// log(sum exp(x)) without overflow: the running sum is kept relative to the largest value so
// far, rescaled when a larger one comes. An infinite largest value is the result (PyTorch gives
// inf for any +inf, -inf when every value is -inf); a NaN anywhere gives NaN.
struct LogSumExpAccumulator {
  struct Value {
    double largest;
    double sum;  // sum of exp(x - largest)
  };
  static Value Start() { return {-std::numeric_limits<double>::infinity(), 0.0}; }
  static void Add(Value& result, float value) {
    if (value > result.largest) {
      result.sum = result.sum * std::exp(result.largest - value) + 1.0;
      result.largest = value;
    } else if (!std::isinf(result.largest) || std::isnan(value)) {
      result.sum += std::exp(value - result.largest);
    }
  }
  static float Finish(const Value& result) {
    if (std::isinf(result.largest) && !std::isnan(result.sum)) {
      return static_cast<float>(result.largest);
    }
    return static_cast<float>(result.largest + std::log(result.sum));
  }
};

}  // namespace

void Reduction::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                        const ForwardContext& context) const {
  const ReductionState& state = context.state_as<ReductionState>();
  Tensor& output = *outputs[0];
  if (output.empty()) return;
  const Tensor& input = *inputs[0];
  switch (kind_) {
    case Kind::kSum:
    case Kind::kMean:
      // An empty sum is 0 and a mean of nothing 0 * (1/0), NaN, as in PyTorch.
      Reduce(SumAccumulator{kind_ == Kind::kMean ? 1.0 / static_cast<double>(state.reduced_count)
                                                 : 1.0},
             input, &output, context);
      return;
    case Kind::kMax:
      Reduce(MaxAccumulator{}, input, &output, context);
      return;
    case Kind::kMin:
      Reduce(MinAccumulator{}, input, &output, context);
      return;
    case Kind::kProd:
      Reduce(ProductAccumulator{}, input, &output, context);
      return;
    case Kind::kNorm:
      if (norm_order_ == std::numeric_limits<float>::infinity()) {
        Reduce(AbsoluteAccumulator<MaxAccumulator>{}, input, &output, context);
      } else if (norm_order_ == -std::numeric_limits<float>::infinity()) {
        Reduce(AbsoluteAccumulator<MinAccumulator>{}, input, &output, context);
      } else {
        Reduce(PowerSumAccumulator{norm_order_}, input, &output, context);
      }
      return;
    case Kind::kStd:
    case Kind::kVar:
      Reduce(MomentsAccumulator{correction_, kind_ == Kind::kStd}, input, &output, context);
      return;
    case Kind::kLogSumExp:
      Reduce(LogSumExpAccumulator{}, input, &output, context);
      return;
  }
}

template <typename Accumulator>
void Reduction::Reduce(const Accumulator& accumulator, const Tensor& input, Tensor* output,
                       const ForwardContext& context) const {
  using Value = typename Accumulator::Value;
  const ReductionState& state = context.state_as<ReductionState>();
  if (state.reduced_count == 0) {  // what the accumulator makes of no values at all
    output->Fill(accumulator.Finish(accumulator.Start()));
    return;
  }
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
          std::fill(results, results + lanes, accumulator.Start());
          size_t counters[kMaxRank] = {};
          size_t offset = input_base + first;
          for (size_t run = 0; run < state.reduced_runs; ++run) {
            const float* values = source + offset;
            for (size_t lane = 0; lane < lanes; ++lane)
              accumulator.Add(results[lane], values[lane]);
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
        Value result = accumulator.Start();
        size_t counters[kMaxRank] = {};
        size_t offset = input_base;
        for (size_t run = 0; run < state.reduced_runs; ++run) {
          const float* values = source + offset;
          for (size_t i = 0; i < run_length; ++i) accumulator.Add(result, values[i]);
          Advance(state.reduced, counters, &offset);
        }
        target[output_base] = accumulator.Finish(result);
      },
      Schedule::kStatic, parallel);
}

LUMEN_REGISTER_LAYER(Reduction, "torch.mean", "Tensor.mean", "torch.sum", "Tensor.sum",
                     "torch.amax", "torch.amin", "torch.prod", "Tensor.prod", "torch.norm",
                     "Tensor.norm", "torch.std", "Tensor.std", "torch.var", "Tensor.var",
                     "torch.logsumexp", "Tensor.logsumexp");

}  // namespace lumen
