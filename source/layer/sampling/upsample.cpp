// nn.Upsample / F.interpolate (and pnnx's F.upsample, F.upsample_nearest, nn.UpsamplingNearest2d,
// nn.UpsamplingBilinear2d): resize 1-D, 2-D and 3-D feature maps, nearest, nearest-exact,
// (bi/tri)linear or bicubic. lumen.Resize (ONNX's Resize to sizes computed from shapes, as
// F.interpolate(size=x.shape[-2:]) exports) reads the whole output shape from input 1's values.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "base/checked_math.hpp"
#include "base/thread_pool.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {

// Resizes (N, C, L), (N, C, H, W) or (N, C, D, H, W) along its spatial axes with PyTorch's exact
// coordinate rules. Each output extent is the given size, or floor(input * scale_factor)
// computed from the input actually given.
//
// Every mode is separable: an output position along one axis reads 1 (nearest), 2 (linear) or 4
// (bicubic) source positions with fixed weights, so Prepare computes those taps once per axis and
// Forward blends, innermost axis first, as PyTorch's kernels do.
class Upsample : public Layer {
 public:
  // Reads mode, size or scale_factor, align_corners and recompute_scale_factor.
  explicit Upsample(const LayerConfig& config);
  // The input with its spatial axes resized.
  Shapes OutputShapes(const Shapes&) const override;
  // lumen.Resize's output shape is the values of input 1.
  std::vector<size_t> ShapeValueInputs() const override;
  // For lumen.Resize: the values of input 1, which may change the spatial extents only.
  Shapes OutputShapesFromValues(const Shapes& input_shapes,
                                const InputTensors& input_values) const override;
  // Computes the source positions and weights of every output position of every axis.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Resizes every channel.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;

  // How output positions read their sources.
  enum class Mode { kNearest, kNearestExact, kLinear, kCubic };

  // Where one output position along one axis reads: up to four source positions and weights.
  struct Tap {
    std::array<int, 4> source = {0, 0, 0, 0};
    std::array<float, 4> weight = {1.0f, 0.0f, 0.0f, 0.0f};
    int count = 1;
  };

 private:
  // Output extent along spatial axis `axis` for an input extent.
  int OutputExtent(size_t axis, uint32_t input_extent) const;
  // Fails unless `input` is (N,C,L), (N,C,H,W) or (N,C,D,H,W) with non-empty spatial axes (and of
  // the rank the mode or the parameters name).
  void CheckInput(const Shape& input) const;
  // Computes the taps of spatial axis `axis`.
  std::vector<Tap> ComputeTaps(size_t axis, int input_size, int output_size) const;

  Mode mode_ = Mode::kNearest;
  size_t dimensions_ = 0;          // spatial axes the parameters name (0: taken from the input)
  bool sizes_from_input_ = false;  // lumen.Resize: the output shape is input 1's values
  bool align_corners_ = false;
  std::vector<int> size_;              // empty when scale factors are given
  std::vector<double> scale_factors_;  // empty when a size is given
  bool recompute_scale_factor_ = false;
};

namespace {

// Per session: the taps of every output position of each spatial axis, outermost (depth) first;
// an axis the input lacks has one output position reading position 0.
struct UpsampleState : LayerState {
  std::array<std::vector<Upsample::Tap>, 3> taps;
  std::vector<int> row_sources;  // nearest modes: the source row of each output row
  size_t bytes() const override {
    return (taps[0].size() + taps[1].size() + taps[2].size()) * sizeof(Upsample::Tap) +
           row_sources.size() * sizeof(int);
  }
};

// Below this many output elements the channels are resized on one thread.
constexpr size_t kParallelElements = 1 << 14;

// The nearest modes of a 2-D or 3-D map: every output value is a copy of one input value (exact,
// -0.0 and NaN payloads included), and an output column whose source column is the previous
// one's (every other column when doubling) is a copy of the column just written.
void ResizeNearest(const UpsampleState& state, const Tensor& input, Tensor& output,
                   ThreadPool* pool) {
  const std::vector<Upsample::Tap>& depth_taps = state.taps[0];
  const std::vector<Upsample::Tap>& column_taps = state.taps[2];
  const std::vector<int>& row_sources = state.row_sources;
  const size_t input_h = input.rows();
  const size_t output_h = row_sources.size();
  const size_t input_plane = input_h * input.cols();
  const size_t output_plane = output_h * column_taps.size();
  const size_t channels = static_cast<size_t>(input.shape()[0]) * input.shape()[1];
  const size_t input_stride = input.size() / channels;  // one channel: depth x H x W
  const size_t output_stride = output.size() / channels;
  ParallelFor(
      pool, static_cast<std::ptrdiff_t>(channels),
      [&](std::ptrdiff_t channel) {
        const float* source = input.data() + channel * input_stride;
        float* target = output.data() + channel * output_stride;
        for (size_t od = 0; od < depth_taps.size(); ++od) {
          const float* slice = source + depth_taps[od].source[0] * input_plane;
          float* plane = target + od * output_plane;
          for (size_t ox = 0; ox < column_taps.size(); ++ox) {
            float* out = plane + ox * output_h;
            const int source_column = column_taps[ox].source[0];
            if (ox > 0 && source_column == column_taps[ox - 1].source[0]) {
              std::copy(out - output_h, out, out);
              continue;
            }
            const float* in = slice + static_cast<size_t>(source_column) * input_h;
            for (size_t oy = 0; oy < output_h; ++oy) out[oy] = in[row_sources[oy]];
          }
        }
      },
      Schedule::kStatic, output.size() >= kParallelElements);
}

// The numbers of a scalar or list parameter as doubles, parsed from the text the file holds.
// PyTorch computes output sizes from the double the model was built with: a float loses digits
// that decide results (floor(10 * 0.7) is 7 in double, 6 in float).
std::vector<double> DoublesOf(const LayerConfig& config, const std::string& key) {
  const Parameter& parameter = config.Param(key);
  const Parameter::Type type = parameter.type();
  if (type != Parameter::Type::kInt && type != Parameter::Type::kFloat &&
      type != Parameter::Type::kIntArray && type != Parameter::Type::kFloatArray) {
    throw Error(Concat(config.Describe(), ": '", key,
                       "' must be a number or a list of numbers, got '", parameter.text(), "'"));
  }
  std::string text = parameter.text();
  text.erase(std::remove_if(text.begin(), text.end(),
                            [](char c) { return c == '(' || c == ')' || c == ' '; }),
             text.end());
  std::vector<double> values;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    char* end = nullptr;
    const double value = std::strtod(item.c_str(), &end);
    if (item.empty() || end != item.c_str() + item.size()) {
      throw Error(
          Concat(config.Describe(), ": cannot read '", key, "' = '", parameter.text(), "'"));
    }
    values.push_back(value);
    start = comma + 1;
  }
  return values;
}

// True if the optional parameter is present and not None.
bool IsGiven(const LayerConfig& config, const std::string& key) {
  return config.HasParam(key) && !config.Param(key).IsNone();
}

// PyTorch's bicubic convolution weights (A = -0.75) of the four taps around a source coordinate
// whose fractional part is t (upsample_bicubic2d's get_cubic_upsample_coefficients).
std::array<float, 4> CubicWeights(float t) {
  constexpr float A = -0.75f;
  const auto near = [](float x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
  const auto far = [](float x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
  return {far(t + 1.0f), near(t), near(1.0f - t), far(2.0f - t)};
}

}  // namespace

Upsample::Upsample(const LayerConfig& config) : Layer(config) {
  const std::string& type = config.type();
  std::string mode = config.StringParam("mode", "nearest");
  if (type == "nn.UpsamplingBilinear2d") {
    mode = "bilinear";
    align_corners_ = true;
  }
  if (mode == "nearest") {
    mode_ = Mode::kNearest;
  } else if (mode == "nearest-exact") {
    mode_ = Mode::kNearestExact;
  } else if (mode == "linear" || mode == "bilinear" || mode == "trilinear") {
    mode_ = Mode::kLinear;
    dimensions_ = mode == "linear" ? 1 : mode == "bilinear" ? 2 : 3;
  } else if (mode == "bicubic") {
    mode_ = Mode::kCubic;
    dimensions_ = 2;
  } else {
    Fail(Concat("mode '", mode,
                "' is not supported (nearest, nearest-exact, linear, bilinear, trilinear and "
                "bicubic are)"));
  }
  if (type.size() > 2 && type.compare(type.size() - 2, 2, "2d") == 0) dimensions_ = 2;
  if (IsGiven(config, "align_corners")) align_corners_ = config.BoolParam("align_corners");
  if (IsGiven(config, "antialias") && config.BoolParam("antialias")) {
    Fail("antialias=True is not supported");
  }
  if (IsGiven(config, "recompute_scale_factor")) {
    recompute_scale_factor_ = config.BoolParam("recompute_scale_factor");
  }
  if (IsGiven(config, "size")) {
    const Parameter& size = config.Param("size");
    size_ = size.type() == Parameter::Type::kInt ? std::vector<int>{size.AsInt()}
                                                 : config.IntArrayParam("size");
    for (int extent : size_) {
      if (extent < 1) Fail(Concat("size must be positive, got ", size.text()));
    }
  }
  if (IsGiven(config, "scale_factor")) {
    scale_factors_ = DoublesOf(config, "scale_factor");
    for (double scale : scale_factors_) {
      if (!(scale > 0.0) || !std::isfinite(scale)) {
        Fail(Concat("scale_factor must be positive, got ", config.Param("scale_factor").text()));
      }
    }
  }
  if (type == "lumen.Resize") {
    sizes_from_input_ = true;
    dimensions_ = 0;  // whatever rank the input has
    if (!size_.empty() || !scale_factors_.empty()) {
      Fail("the sizes are input 1: no size or scale_factor may be given");
    }
    return;
  }
  if (size_.empty() == scale_factors_.empty()) {
    Fail("exactly one of size and scale_factor must be given");
  }
  // A list names every spatial axis; a single value serves them all.
  const size_t listed = std::max(size_.size(), scale_factors_.size());
  if (listed > 3) Fail(Concat("at most 3 spatial axes can be resized, got ", listed));
  if (listed > 1) {
    if (dimensions_ != 0 && dimensions_ != listed) {
      Fail(Concat("mode '", mode, "' resizes ", dimensions_, " axes, but ", listed,
                  " sizes or scale factors are given"));
    }
    dimensions_ = listed;
  }
}

int Upsample::OutputExtent(size_t axis, uint32_t input_extent) const {
  if (!size_.empty()) return size_[size_.size() == 1 ? 0 : axis];
  const double scale = scale_factors_[scale_factors_.size() == 1 ? 0 : axis];
  // PyTorch: floor(float(input) * scale_factor), in double.
  const double extent = std::floor(static_cast<double>(input_extent) * scale);
  if (!(extent <= static_cast<double>(std::numeric_limits<int>::max()))) {
    Fail(Concat("scale_factor ", scale, " makes an extent of ", input_extent, " too large"));
  }
  return static_cast<int>(extent);
}

void Upsample::CheckInput(const Shape& input) const {
  const size_t rank = input.size();
  const size_t expected_rank = dimensions_ == 0 ? rank : dimensions_ + 2;
  bool valid = rank == expected_rank && rank >= 3 && rank <= 5;
  for (size_t i = 2; valid && i < rank; ++i) {
    valid = input[i] > 0 && input[i] <= static_cast<uint32_t>(std::numeric_limits<int>::max());
  }
  if (!valid) {
    const char* forms[] = {"an (N,C,L)", "an (N,C,H,W)", "an (N,C,D,H,W)"};
    Fail(Concat("expected ",
                dimensions_ == 0 ? "an (N,C,L), (N,C,H,W) or (N,C,D,H,W)" : forms[dimensions_ - 1],
                " input with non-empty spatial axes, got ", ShapeToString(input)));
  }
}

std::vector<size_t> Upsample::ShapeValueInputs() const {
  return sizes_from_input_ ? std::vector<size_t>{1} : std::vector<size_t>{};
}

Shapes Upsample::OutputShapesFromValues(const Shapes& input_shapes,
                                        const InputTensors& input_values) const {
  if (!sizes_from_input_) return OutputShapes(input_shapes);
  CheckInputCount(input_shapes, 2);
  const Shape& input = input_shapes[0];
  CheckInput(input);
  const std::vector<int64_t> sizes = IntegerValues(*input_values[1], "the sizes (input 1)");
  Shape output = input;
  bool valid = sizes.size() == input.size();
  for (size_t i = 0; valid && i < input.size(); ++i) {
    valid = i < 2 ? sizes[i] == input[i] : sizes[i] >= 1 && sizes[i] <= INT32_MAX;
    if (valid) output[i] = static_cast<uint32_t>(sizes[i]);
  }
  if (!valid) {
    Fail(Concat("cannot resize ", ShapeToString(input), " to sizes (input 1) holding ",
                input_values[1]->size(),
                " values: only the spatial axes can change, each to a positive extent"));
  }
  return {output};
}

Shapes Upsample::OutputShapes(const Shapes& input_shapes) const {
  if (sizes_from_input_) FailWithoutValues();
  CheckInputCount(input_shapes, 1);
  const Shape& input = input_shapes[0];
  const size_t rank = input.size();
  CheckInput(input);
  Shape output = input;
  bool empty = false;
  for (size_t i = 2; i < rank; ++i) {
    const int extent = OutputExtent(i - 2, input[i]);
    output[i] = static_cast<uint32_t>(std::max(extent, 0));
    empty = empty || extent < 1;
  }
  if (empty) {
    Fail(Concat("input ", ShapeToString(input), " resizes to ", ShapeToString(output),
                ", which is empty"));
  }
  return {output};
}

std::vector<Upsample::Tap> Upsample::ComputeTaps(size_t axis, int input_size,
                                                 int output_size) const {
  // PyTorch maps output index i to a source coordinate with a scale of input/output, except that
  // a user-given scale factor is used as 1/scale_factor unless recompute_scale_factor is set, and
  // align_corners (linear and cubic modes only) maps the corner pixels onto each other. The scale
  // is a float, as in PyTorch's CPU kernels for float tensors.
  const bool use_factor = !scale_factors_.empty() && !recompute_scale_factor_;
  const double factor = use_factor ? scale_factors_[scale_factors_.size() == 1 ? 0 : axis] : 0.0;
  float scale = use_factor ? static_cast<float>(1.0 / factor)
                           : static_cast<float>(input_size) / static_cast<float>(output_size);
  const bool interpolates = mode_ == Mode::kLinear || mode_ == Mode::kCubic;
  if (interpolates && align_corners_) {
    scale = output_size > 1
                ? static_cast<float>(input_size - 1) / static_cast<float>(output_size - 1)
                : 0.0f;
  }
  std::vector<Tap> taps(static_cast<size_t>(output_size));
  for (int i = 0; i < output_size; ++i) {
    Tap& tap = taps[static_cast<size_t>(i)];
    const float position = static_cast<float>(i);
    switch (mode_) {
      case Mode::kNearest:
        // PyTorch's nearest_idx, with its exact shortcuts for the same size and for doubling.
        tap.source[0] =
            output_size == input_size ? i
            : output_size == 2 * input_size
                ? i >> 1
                : std::min(static_cast<int>(std::floor(position * scale)), input_size - 1);
        break;
      case Mode::kNearestExact:
        tap.source[0] =
            std::min(static_cast<int>(std::floor((position + 0.5f) * scale)), input_size - 1);
        break;
      case Mode::kLinear: {
        // PyTorch's CPU kernel: the scale in float, the source coordinate and the weight from it
        // in double, the weights stored as floats. A float coordinate rounds (10/21) * 25 up to
        // 12, where PyTorch blends 11 and 12.
        const double at = static_cast<double>(i);
        const double wide_scale = static_cast<double>(scale);
        const double source =
            align_corners_ ? wide_scale * at : std::max(wide_scale * (at + 0.5) - 0.5, 0.0);
        const int first = std::min(static_cast<int>(std::floor(source)), input_size - 1);
        tap.count = 2;
        tap.source = {first, first + (first < input_size - 1 ? 1 : 0), 0, 0};
        tap.weight[1] = static_cast<float>(std::clamp(source - first, 0.0, 1.0));
        tap.weight[0] = 1.0f - tap.weight[1];
        break;
      }
      case Mode::kCubic: {
        // Not clamped at 0: the four taps around the coordinate are clamped instead.
        const float source = align_corners_ ? scale * position : scale * (position + 0.5f) - 0.5f;
        const float floor = std::floor(source);
        tap.count = 4;
        tap.weight = CubicWeights(source - floor);
        for (int k = 0; k < 4; ++k) {
          tap.source[k] = std::clamp(static_cast<int>(floor) - 1 + k, 0, input_size - 1);
        }
        break;
      }
    }
  }
  return taps;
}

StatePointer Upsample::Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                               const PrepareContext& /*context*/) const {
  const Shape& input = input_shapes[0];
  const Shape& output = output_shapes[0];
  const size_t spatial = input.size() - 2;
  auto state = std::make_unique<UpsampleState>();
  for (size_t slot = 0; slot < 3; ++slot) {
    if (slot + spatial < 3) {
      state->taps[slot] = {Tap{}};  // an axis the input lacks
      continue;
    }
    const size_t axis = slot + spatial - 3;
    state->taps[slot] = ComputeTaps(axis, static_cast<int>(input[axis + 2]),
                                    CheckedInt(output[axis + 2], "resized extent"));
  }
  if (mode_ == Mode::kNearest || mode_ == Mode::kNearestExact) {
    for (const Tap& row : state->taps[1]) state->row_sources.push_back(row.source[0]);
  }
  return state;
}

void Upsample::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                       const ForwardContext& context) const {
  const UpsampleState& state = context.state_as<UpsampleState>();
  const Tensor& input = *inputs[0];
  Tensor& output = *outputs[0];
  const Shape& shape = input.shape();
  if (!state.row_sources.empty() && shape.size() >= 4) {
    ResizeNearest(state, input, output, context.compute.pool);
    return;
  }
  const std::vector<Tap>& depth_taps = state.taps[0];
  const std::vector<Tap>& row_taps = state.taps[1];
  const std::vector<Tap>& column_taps = state.taps[2];
  // Memory steps of one position along depth, rows and columns, in and out. Tensors store the
  // last two axes column-major (tensor.hpp): an (N,C,L) map is N slices of C x L, so its L axis
  // steps over C floats and its channels (N*C of them) start one float apart within a sample.
  const bool one_dimensional = shape.size() == 3;
  const size_t input_h = one_dimensional ? 1 : input.rows();
  const size_t output_h = row_taps.size();
  const size_t column_step_in = one_dimensional ? shape[1] : input_h;
  const size_t column_step_out = one_dimensional ? shape[1] : output_h;
  const size_t depth_step_in = input_h * input.cols();
  const size_t depth_step_out = output_h * column_taps.size();
  const size_t channels = static_cast<size_t>(shape[0]) * shape[1];
  // Floats from one channel's start to the next sample's (N,C,L) or the next channel's.
  const size_t input_stride = input.size() / (one_dimensional ? shape[0] : channels);
  const size_t output_stride = output.size() / (one_dimensional ? shape[0] : channels);
  ParallelFor(
      context.compute.pool, static_cast<std::ptrdiff_t>(channels),
      [&](std::ptrdiff_t channel) {
        // Where a channel starts: (N,C,L)'s channel (n, c) is column c of slice n.
        const size_t sample = one_dimensional ? channel / shape[1] : channel;
        const size_t lane = one_dimensional ? channel % shape[1] : 0;
        const float* source = input.data() + sample * input_stride + lane;
        float* target = output.data() + sample * output_stride + lane;
        for (size_t od = 0; od < depth_taps.size(); ++od) {
          const Tap& depth = depth_taps[od];
          for (size_t ox = 0; ox < column_taps.size(); ++ox) {
            const Tap& column = column_taps[ox];
            float* out = target + od * depth_step_out + ox * column_step_out;
            for (size_t oy = 0; oy < output_h; ++oy) {
              const Tap& row = row_taps[oy];
              // The same blend order as PyTorch: across the columns, then down the rows, then
              // through the depth.
              float value = 0.0f;
              for (int d = 0; d < depth.count; ++d) {
                const float* slice = source + depth.source[d] * depth_step_in;
                float plane = 0.0f;
                for (int r = 0; r < row.count; ++r) {
                  float line = 0.0f;
                  for (int c = 0; c < column.count; ++c) {
                    line +=
                        column.weight[c] * slice[column.source[c] * column_step_in + row.source[r]];
                  }
                  plane += row.weight[r] * line;
                }
                value += depth.weight[d] * plane;
              }
              out[oy] = value;
            }
          }
        }
      },
      Schedule::kStatic, output.size() >= kParallelElements);
}

LUMEN_REGISTER_LAYER(Upsample, "nn.Upsample", "lumen.Resize", "F.upsample", "F.interpolate",
                     "F.upsample_nearest", "nn.UpsamplingNearest2d", "nn.UpsamplingBilinear2d");

}  // namespace lumen
