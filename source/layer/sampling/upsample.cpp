// nn.Upsample / F.interpolate (and pnnx's F.upsample, F.upsample_nearest): resize feature maps,
// nearest or bilinear.
#include <algorithm>
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

// Resizes (N, C, H, W) to (N, C, H', W') with PyTorch's exact coordinate rules. H' and W' are the
// given size, or floor(H * scale_factor) computed from the input actually given.
//
// Every output row (and column) reads one or two source rows with fixed weights, so Prepare
// computes those indices and weights once per axis and Forward only blends.
class Upsample : public Layer {
 public:
  // Reads mode, size or scale_factor, align_corners and recompute_scale_factor.
  explicit Upsample(const LayerConfig& config);
  // The input with its plane resized.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Computes the source indices and weights of every output row and column.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override;
  // Resizes every plane.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

  // Where one output row (or column) reads: source indices and their weights.
  struct Tap {
    int first = 0;
    int second = 0;
    float first_weight = 1.0f;
    float second_weight = 0.0f;
  };

 private:
  // Output extent along one axis (0: rows, 1: columns) for an input extent.
  int OutputExtent(int axis, uint32_t input_extent) const;
  // Computes the taps of one axis (0: rows, 1: columns).
  std::vector<Tap> ComputeTaps(int axis, int input_size, int output_size) const;

  bool bilinear_ = false;
  bool align_corners_ = false;
  std::vector<int> size_;              // empty when scale factors are given
  std::vector<double> scale_factors_;  // empty when a size is given
  bool recompute_scale_factor_ = false;
};

namespace {

// Per session: the taps of every output row and column for these shapes.
struct UpsampleState : LayerState {
  std::vector<Upsample::Tap> row_taps;
  std::vector<Upsample::Tap> col_taps;
  size_t bytes() const override {
    return (row_taps.size() + col_taps.size()) * sizeof(Upsample::Tap);
  }
};

// Below this many output elements the planes are resized on one thread.
constexpr size_t kParallelElements = 1 << 14;

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

// A 2-D resize needs one value per axis: a single value serves both.
template <typename Value>
std::vector<Value> AsPair(const LayerConfig& config, const std::string& key,
                          std::vector<Value> values) {
  if (values.size() == 1) values.push_back(values[0]);
  if (values.size() != 2) {
    throw Error(Concat(config.Describe(), ": '", key, "' must have 2 entries for a 2-D resize"));
  }
  return values;
}

// True if the optional parameter is present and not None.
bool IsGiven(const LayerConfig& config, const std::string& key) {
  return config.HasParam(key) && !config.Param(key).IsNone();
}

}  // namespace

Upsample::Upsample(const LayerConfig& config) : Layer(config) {
  const std::string mode = config.StringParam("mode", "nearest");
  if (mode != "nearest" && mode != "bilinear") {
    Fail(Concat("mode '", mode, "' is not supported (only nearest and bilinear)"));
  }
  bilinear_ = mode == "bilinear";
  if (IsGiven(config, "align_corners")) align_corners_ = config.BoolParam("align_corners");
  if (IsGiven(config, "recompute_scale_factor")) {
    recompute_scale_factor_ = config.BoolParam("recompute_scale_factor");
  }
  if (IsGiven(config, "size")) {
    const Parameter& size = config.Param("size");
    size_ = AsPair(config, "size",
                   size.type() == Parameter::Type::kInt ? std::vector<int>{size.AsInt()}
                                                        : config.IntArrayParam("size"));
    if (size_[0] < 1 || size_[1] < 1) Fail(Concat("size must be positive, got ", size.text()));
  }
  if (IsGiven(config, "scale_factor")) {
    scale_factors_ = AsPair(config, "scale_factor", DoublesOf(config, "scale_factor"));
    for (double scale : scale_factors_) {
      if (!(scale > 0.0) || !std::isfinite(scale)) {
        Fail(Concat("scale_factor must be positive, got ", config.Param("scale_factor").text()));
      }
    }
  }
  if (size_.empty() == scale_factors_.empty()) {
    Fail("exactly one of size and scale_factor must be given");
  }
}

int Upsample::OutputExtent(int axis, uint32_t input_extent) const {
  if (!size_.empty()) return size_[axis];
  // PyTorch: floor(float(input) * scale_factor), in double.
  const double extent = std::floor(static_cast<double>(input_extent) * scale_factors_[axis]);
  if (!(extent <= static_cast<double>(std::numeric_limits<int>::max()))) {
    Fail(Concat("scale_factor ", scale_factors_[axis], " makes an extent of ", input_extent,
                " too large"));
  }
  return static_cast<int>(extent);
}

std::vector<Shape> Upsample::OutputShapes(const std::vector<Shape>& input_shapes) const {
  CheckInputCount(input_shapes, 1);
  const Shape& input = input_shapes[0];
  if (input.size() != 4 || input[2] == 0 || input[3] == 0 ||
      input[2] > static_cast<uint32_t>(std::numeric_limits<int>::max()) ||
      input[3] > static_cast<uint32_t>(std::numeric_limits<int>::max())) {
    Fail(Concat("expected an (N,C,H,W) input with non-empty H and W, got ", ShapeToString(input)));
  }
  const int output_h = OutputExtent(0, input[2]);
  const int output_w = OutputExtent(1, input[3]);
  const Shape output{input[0], input[1], static_cast<uint32_t>(std::max(output_h, 0)),
                     static_cast<uint32_t>(std::max(output_w, 0))};
  if (output_h < 1 || output_w < 1) {
    Fail(Concat("input ", ShapeToString(input), " resizes to ", ShapeToString(output),
                ", which is empty"));
  }
  return {output};
}

std::vector<Upsample::Tap> Upsample::ComputeTaps(int axis, int input_size, int output_size) const {
  // PyTorch maps output index i to a source coordinate with a scale of input/output, except that
  // a user-given scale factor is used as 1/scale_factor unless recompute_scale_factor is set, and
  // align_corners maps the corner pixels onto each other. The scale is a float, as in PyTorch's
  // CPU kernels for float tensors.
  const bool use_factor = !scale_factors_.empty() && !recompute_scale_factor_;
  float scale = use_factor ? static_cast<float>(1.0 / scale_factors_[axis])
                           : static_cast<float>(input_size) / static_cast<float>(output_size);
  if (bilinear_ && align_corners_) {
    scale = output_size > 1
                ? static_cast<float>(input_size - 1) / static_cast<float>(output_size - 1)
                : 0.0f;
  }
  std::vector<Tap> taps(static_cast<size_t>(output_size));
  for (int i = 0; i < output_size; ++i) {
    Tap& tap = taps[static_cast<size_t>(i)];
    if (!bilinear_) {
      // PyTorch's nearest_idx, with its exact shortcuts for the same size and for doubling.
      tap.first = output_size == input_size ? i
                  : output_size == 2 * input_size
                      ? i >> 1
                      : std::min(static_cast<int>(std::floor(static_cast<float>(i) * scale)),
                                 input_size - 1);
      tap.second = tap.first;
      continue;
    }
    const float source = align_corners_
                             ? scale * static_cast<float>(i)
                             : std::max(scale * (static_cast<float>(i) + 0.5f) - 0.5f, 0.0f);
    tap.first = std::min(static_cast<int>(std::floor(source)), input_size - 1);
    tap.second = tap.first + (tap.first < input_size - 1 ? 1 : 0);
    tap.second_weight = std::clamp(source - static_cast<float>(tap.first), 0.0f, 1.0f);
    tap.first_weight = 1.0f - tap.second_weight;
  }
  return taps;
}

std::unique_ptr<LayerState> Upsample::Prepare(const std::vector<Shape>& input_shapes,
                                              const std::vector<Shape>& output_shapes,
                                              const PrepareContext& /*context*/) const {
  const Shape& input = input_shapes[0];
  const Shape& output = output_shapes[0];
  auto state = std::make_unique<UpsampleState>();
  state->row_taps =
      ComputeTaps(0, static_cast<int>(input[2]), CheckedInt(output[2], "resized height"));
  state->col_taps =
      ComputeTaps(1, static_cast<int>(input[3]), CheckedInt(output[3], "resized width"));
  return state;
}

void Upsample::Forward(const std::vector<const Tensor*>& inputs,
                       const std::vector<Tensor*>& outputs, const ForwardContext& context) const {
  const UpsampleState& state = context.state_as<UpsampleState>();
  const Tensor& input = *inputs[0];
  Tensor& output = *outputs[0];
  const size_t output_h = state.row_taps.size();
  const size_t output_w = state.col_taps.size();
  const size_t input_h = input.rows();
  ParallelFor(
      context.compute.pool, static_cast<std::ptrdiff_t>(input.channels()),
      [&](std::ptrdiff_t channel) {
        const float* source = input.channel_data(channel);
        float* target = output.channel_data(channel);
        for (size_t ox = 0; ox < output_w; ++ox) {
          const Tap& col = state.col_taps[ox];
          const float* left = source + col.first * input_h;  // input columns are contiguous
          const float* right = source + col.second * input_h;
          float* out = target + ox * output_h;
          for (size_t oy = 0; oy < output_h; ++oy) {
            const Tap& row = state.row_taps[oy];
            // The same blend order as PyTorch: across the columns, then down the rows.
            out[oy] =
                row.first_weight *
                    (col.first_weight * left[row.first] + col.second_weight * right[row.first]) +
                row.second_weight *
                    (col.first_weight * left[row.second] + col.second_weight * right[row.second]);
          }
        }
      },
      Schedule::kStatic, output.size() >= kParallelElements);
}

LUMEN_REGISTER_LAYER(Upsample, "nn.Upsample", "F.upsample", "F.interpolate", "F.upsample_nearest");

}  // namespace lumen
