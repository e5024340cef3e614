#include "lumen/layer/upsample.hpp"

#include <algorithm>
#include <cmath>

#include "lumen/base/error.hpp"
#include "lumen/base/parallel.hpp"
#include "lumen/layer/layer_registry.hpp"

namespace lumen {
namespace {

// Reads an optional parameter that may be absent, None, a scalar or a list, as a pair.
template <typename Value, typename Read>
std::vector<Value> OptionalPair(const RuntimeOperator& op, const std::string& key, Read read) {
  if (!op.HasParam(key) || op.Param(key).IsNone()) return {};
  std::vector<Value> values = read();
  if (values.size() == 1) values.push_back(values[0]);
  if (values.size() != 2) {
    throw Error(Concat(op.Describe(), ": '", key, "' must have 2 entries for a 2-D resize"));
  }
  return values;
}

}  // namespace

Upsample::Upsample(const RuntimeOperator& op) : Layer(op) {
  const std::string mode = op.StringParam("mode", "nearest");
  if (mode != "nearest" && mode != "bilinear") {
    Fail(Concat("mode '", mode, "' is not supported (only nearest and bilinear)"));
  }
  bilinear_ = mode == "bilinear";
  if (op.HasParam("align_corners") && !op.Param("align_corners").IsNone()) {
    align_corners_ = op.BoolParam("align_corners");
  }
  if (op.HasParam("recompute_scale_factor") && !op.Param("recompute_scale_factor").IsNone()) {
    recompute_scale_factor_ = op.BoolParam("recompute_scale_factor");
  }
  size_ = OptionalPair<int>(op, "size", [&] {
    const RuntimeParameter& size = op.Param("size");
    return size.type() == RuntimeParameter::Type::kInt ? std::vector<int>{size.AsInt()}
                                                       : op.IntArrayParam("size");
  });
  scale_factors_ = OptionalPair<float>(op, "scale_factor", [&] {
    const RuntimeParameter& scale = op.Param("scale_factor");
    return scale.type() == RuntimeParameter::Type::kFloat ||
                   scale.type() == RuntimeParameter::Type::kInt
               ? std::vector<float>{scale.AsFloat()}
               : op.FloatArrayParam("scale_factor");
  });
  if (size_.empty() == scale_factors_.empty()) {
    Fail("exactly one of size and scale_factor must be given");
  }
}

std::vector<Upsample::Tap> Upsample::ComputeTaps(int input_size, int output_size,
                                                 float scale_factor) const {
  // PyTorch maps output index i to a source coordinate with a scale of input/output, except that
  // a user-given scale factor is used as 1/scale_factor unless recompute_scale_factor is set, and
  // align_corners maps the corner pixels onto each other.
  const bool use_factor = scale_factor > 0.0f && !recompute_scale_factor_;
  float scale = use_factor ? 1.0f / scale_factor
                           : static_cast<float>(input_size) / static_cast<float>(output_size);
  if (bilinear_ && align_corners_) {
    scale = output_size > 1 ? static_cast<float>(input_size - 1) / (output_size - 1) : 0.0f;
  }
  std::vector<Tap> taps(output_size);
  for (int i = 0; i < output_size; ++i) {
    Tap& tap = taps[i];
    if (!bilinear_) {
      tap.first = tap.second =
          std::min(static_cast<int>(std::floor(static_cast<float>(i) * scale)), input_size - 1);
      continue;
    }
    const float source = align_corners_
                             ? scale * static_cast<float>(i)
                             : std::max(scale * (static_cast<float>(i) + 0.5f) - 0.5f, 0.0f);
    tap.first = std::min(static_cast<int>(source), input_size - 1);
    tap.second = tap.first + (tap.first < input_size - 1 ? 1 : 0);
    tap.second_weight = std::clamp(source - static_cast<float>(tap.first), 0.0f, 1.0f);
    tap.first_weight = 1.0f - tap.second_weight;
  }
  return taps;
}

void Upsample::Prepare(const std::vector<Shape>& input_shapes,
                       const std::vector<Shape>& output_shapes) {
  CheckArity(input_shapes, output_shapes, 1, 1);
  const Shape& input = input_shapes[0];
  if (input.size() != 4) {
    Fail(Concat("expected an (N,C,H,W) input, got ", ShapeToString(input)));
  }
  const int input_h = static_cast<int>(input[2]);
  const int input_w = static_cast<int>(input[3]);
  const int output_h =
      size_.empty() ? static_cast<int>(std::floor(input_h * scale_factors_[0])) : size_[0];
  const int output_w =
      size_.empty() ? static_cast<int>(std::floor(input_w * scale_factors_[1])) : size_[1];
  const Shape expected{input[0], input[1], static_cast<uint32_t>(std::max(output_h, 0)),
                       static_cast<uint32_t>(std::max(output_w, 0))};
  if (output_h < 1 || output_w < 1 || output_shapes[0] != expected) {
    Fail(Concat("input ", ShapeToString(input), " resizes to ", ShapeToString(expected),
                " but the graph says ", ShapeToString(output_shapes[0])));
  }
  row_taps_ = ComputeTaps(input_h, output_h, size_.empty() ? scale_factors_[0] : 0.0f);
  col_taps_ = ComputeTaps(input_w, output_w, size_.empty() ? scale_factors_[1] : 0.0f);
}

void Upsample::Forward(const std::vector<const TensorBatch*>& inputs,
                       const std::vector<TensorBatch*>& outputs) {
  const int output_h = static_cast<int>(row_taps_.size());
  const int output_w = static_cast<int>(col_taps_.size());
  for (size_t sample = 0; sample < inputs[0]->size(); ++sample) {
    const Tensor& input = (*inputs[0])[sample];
    Tensor& output = (*outputs[0])[sample];
    const int input_h = static_cast<int>(input.rows());
    const int channels = static_cast<int>(input.channels());
    ParallelFor(channels, [&](int channel) {
      const float* source = input.channel_data(channel);
      float* target = output.channel_data(channel);
      for (int ox = 0; ox < output_w; ++ox) {
        const Tap& col = col_taps_[ox];
        const float* left = source + col.first * input_h;  // input columns are contiguous
        const float* right = source + col.second * input_h;
        float* out = target + ox * output_h;
        for (int oy = 0; oy < output_h; ++oy) {
          const Tap& row = row_taps_[oy];
          // The same blend order as PyTorch: rows first, then columns.
          out[oy] =
              row.first_weight *
                  (col.first_weight * left[row.first] + col.second_weight * right[row.first]) +
              row.second_weight *
                  (col.first_weight * left[row.second] + col.second_weight * right[row.second]);
        }
      }
    });
  }
}

LUMEN_REGISTER_LAYER(Upsample, "nn.Upsample", "F.upsample", "F.interpolate");

}  // namespace lumen
