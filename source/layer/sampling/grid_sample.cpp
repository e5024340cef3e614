// F.grid_sample: samples a feature map at the normalised coordinates of a grid (bilinear,
// nearest or bicubic; zeros, border or reflection padding), in 2-D and 3-D.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "base/thread_pool.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

enum class SampleMode { kBilinear, kNearest, kBicubic };
enum class Padding { kZeros, kBorder, kReflection };

// Up to four input positions along one axis and their weights; a position outside the input
// (zeros padding) reads 0.
struct AxisSamples {
  std::array<int64_t, 4> position = {0, 0, 0, 0};
  std::array<float, 4> weight = {0, 0, 0, 0};
  int count = 0;
};

// PyTorch's reflect_coordinates: reflects `coordinate` into [twice_low / 2, twice_high / 2].
float Reflect(float coordinate, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return 0.0f;
  const float low = static_cast<float>(twice_low) / 2;
  const float span = static_cast<float>(twice_high - twice_low) / 2;
  coordinate = std::fabs(coordinate - low);
  const float extra = std::fmod(coordinate, span);
  const int64_t flips = static_cast<int64_t>(std::floor(coordinate / span));
  return flips % 2 == 0 ? extra + low : span - extra + low;
}

// PyTorch's compute_coordinates: a pixel coordinate moved inside the input as the padding says.
float Pad(float coordinate, int64_t size, Padding padding, bool align_corners) {
  if (padding == Padding::kZeros) return coordinate;
  if (padding == Padding::kReflection) {
    coordinate = align_corners ? Reflect(coordinate, 0, 2 * (size - 1))
                               : Reflect(coordinate, -1, 2 * size - 1);
  }
  return std::min(static_cast<float>(size - 1), std::max(coordinate, 0.0f));
}

// PyTorch's bicubic convolution weights (A = -0.75) for a fractional part t.
std::array<float, 4> CubicWeights(float t) {
  constexpr float A = -0.75f;
  const auto near = [](float x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
  const auto far = [](float x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
  return {far(t + 1.0f), near(t), near(1.0f - t), far(2.0f - t)};
}

// The samples along one axis of `size` positions for a normalised grid coordinate in [-1, 1].
AxisSamples SamplesOf(float normalised, int64_t size, SampleMode mode, Padding padding,
                      bool align_corners) {
  const float coordinate = align_corners ? (normalised + 1) / 2 * static_cast<float>(size - 1)
                                         : ((normalised + 1) * static_cast<float>(size) - 1) / 2;
  AxisSamples samples;
  const auto add = [&](float position, float weight) {
    samples.position[samples.count] = static_cast<int64_t>(position);
    samples.weight[samples.count] = weight;
    // Outside the input (only possible with zeros padding, or a NaN coordinate): reads 0.
    if (!(position >= 0 && position < static_cast<float>(size))) samples.weight[samples.count] = 0;
    if (samples.weight[samples.count] == 0) samples.position[samples.count] = 0;
    ++samples.count;
  };
  if (mode == SampleMode::kBicubic) {
    // Bicubic pads each of its four taps, not the coordinate.
    const float first = std::floor(coordinate);
    const std::array<float, 4> weights = CubicWeights(coordinate - first);
    for (int k = 0; k < 4; ++k) {
      add(std::floor(Pad(first - 1 + static_cast<float>(k), size, padding, align_corners)),
          weights[k]);
    }
    return samples;
  }
  const float padded = Pad(coordinate, size, padding, align_corners);
  if (mode == SampleMode::kNearest) {
    add(std::nearbyint(padded), 1.0f);
    return samples;
  }
  const float low = std::floor(padded);
  add(low, low + 1 - padded);
  add(low + 1, padded - low);
  return samples;
}

}  // namespace

// Input (N, C, H, W) and grid (N, H', W', 2) of (x, y) in [-1, 1] give (N, C, H', W'); input
// (N, C, D, H, W) and grid (N, D', H', W', 3) of (x, y, z) give (N, C, D', H', W'). Each output is
// the input interpolated at its grid point, as PyTorch's grid_sampler computes it: the corners
// (bilinear), the nearest pixel (half to even), or 4 x 4 taps (bicubic, 2-D only), with each
// padding rule.
class GridSample : public Layer {
 public:
  // Reads mode, padding_mode and align_corners.
  explicit GridSample(const LayerConfig& config) : Layer(config) {
    const std::string mode = config.StringParam("mode", "bilinear");
    const std::string padding = config.StringParam("padding_mode", "zeros");
    mode_ = mode == "bilinear"  ? SampleMode::kBilinear
            : mode == "nearest" ? SampleMode::kNearest
            : mode == "bicubic" ? SampleMode::kBicubic
                                : (Fail(Concat("unknown mode '", mode, "'")), SampleMode::kNearest);
    padding_ = padding == "zeros"    ? Padding::kZeros
               : padding == "border" ? Padding::kBorder
               : padding == "reflection"
                   ? Padding::kReflection
                   : (Fail(Concat("unknown padding_mode '", padding, "'")), Padding::kZeros);
    align_corners_ = config.HasParam("align_corners") && !config.Param("align_corners").IsNone() &&
                     config.BoolParam("align_corners");
  }

  // (N, C) of the input and the grid's spatial extents.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 2);
    const Shape& input = input_shapes[0];
    const Shape& grid = input_shapes[1];
    const size_t rank = input.size();
    if ((rank != 4 && rank != 5) || grid.size() != rank || grid[0] != input[0] ||
        grid[rank - 1] != rank - 2) {
      Fail(
          Concat("expected an (N,C,H,W) input with an (N,H',W',2) grid or an (N,C,D,H,W) input "
                 "with an (N,D',H',W',3) grid, got ",
                 ShapeToString(input), " and ", ShapeToString(grid)));
    }
    if (rank == 5 && mode_ == SampleMode::kBicubic) Fail("bicubic needs a 4-D input");
    Shape output = input;
    for (size_t i = 2; i < rank; ++i) output[i] = grid[i - 1];
    return {output};
  }

  // Samples every channel at every grid point.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const Shape& shape = inputs[0]->shape();
    const Shape& output_shape = outputs[0]->shape();
    const bool volume = shape.size() == 5;
    const int64_t channels = shape[1];
    const int64_t depth = volume ? shape[2] : 1, height = shape[shape.size() - 2],
                  width = shape.back();
    const int64_t out_depth = volume ? output_shape[2] : 1,
                  out_height = output_shape[output_shape.size() - 2],
                  out_width = output_shape.back();
    const int64_t axes = volume ? 3 : 2;
    const float* input = inputs[0]->data();
    const float* grid = inputs[1]->data();
    float* output = outputs[0]->data();
    ParallelFor(context.compute.pool, static_cast<std::ptrdiff_t>(shape[0]), [&](std::ptrdiff_t n) {
      for (int64_t od = 0; od < out_depth; ++od) {
        for (int64_t oy = 0; oy < out_height; ++oy) {
          // The grid's last two axes (W', axes) are stored column-major: coordinate
          // k of point x at row (n, d, y)'s start + k * W' + x.
          const float* row = grid + ((n * out_depth + od) * out_height + oy) * out_width * axes;
          for (int64_t ox = 0; ox < out_width; ++ox) {
            const AxisSamples xs = SamplesOf(row[ox], width, mode_, padding_, align_corners_);
            const AxisSamples ys =
                SamplesOf(row[out_width + ox], height, mode_, padding_, align_corners_);
            AxisSamples zs;
            zs.count = 1;
            zs.weight[0] = 1.0f;
            if (volume) {
              zs = SamplesOf(row[2 * out_width + ox], depth, mode_, padding_, align_corners_);
            }
            for (int64_t c = 0; c < channels; ++c) {
              const float* plane = input + (n * channels + c) * depth * height * width;
              float value = 0.0f;
              for (int k = 0; k < zs.count; ++k) {
                const float* slice = plane + zs.position[k] * height * width;
                float sum_y = 0.0f;
                for (int j = 0; j < ys.count; ++j) {
                  float sum_x = 0.0f;
                  for (int i = 0; i < xs.count; ++i) {
                    if (xs.weight[i] == 0) continue;
                    sum_x += xs.weight[i] * slice[xs.position[i] * height + ys.position[j]];
                  }
                  sum_y += ys.weight[j] * sum_x;
                }
                value += zs.weight[k] * sum_y;
              }
              output[(((n * channels + c) * out_depth + od) * out_width + ox) * out_height + oy] =
                  value;
            }
          }
        }
      }
    });
  }

 private:
  SampleMode mode_ = SampleMode::kBilinear;
  Padding padding_ = Padding::kZeros;
  bool align_corners_ = false;
};

LUMEN_REGISTER_LAYER(GridSample, "F.grid_sample");

}  // namespace lumen
