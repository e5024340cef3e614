#include "lumen/layer/convolution.hpp"

#include <algorithm>

#include "lumen/base/error.hpp"
#include "lumen/layer/layer_registry.hpp"
#include "lumen/math/gemm.hpp"

namespace lumen {

Convolution::Convolution(const RuntimeOperator& op) : Layer(op) {
  in_channels_ = op.IntParam("in_channels");
  out_channels_ = op.IntParam("out_channels");
  groups_ = op.IntParam("groups", 1);
  window_ = ReadWindow2d(op, false);
  const std::string padding_mode = op.StringParam("padding_mode", "zeros");
  if (padding_mode != "zeros") {
    Fail(Concat("padding_mode '", padding_mode, "' is not supported (only 'zeros')"));
  }
  if (groups_ < 1 || in_channels_ < 1 || out_channels_ < 1 || in_channels_ % groups_ != 0 ||
      out_channels_ % groups_ != 0) {
    Fail(Concat("in_channels ", in_channels_, " and out_channels ", out_channels_,
                " must be positive multiples of groups ", groups_));
  }
  weights_ = op.AttributeFloats(
      "weight", {out_channels_, in_channels_ / groups_, window_.kernel_h, window_.kernel_w});
  if (op.BoolParam("bias", false)) bias_ = op.AttributeFloats("bias", {out_channels_});
}

void Convolution::Prepare(const std::vector<Shape>& input_shapes,
                          const std::vector<Shape>& output_shapes) {
  CheckArity(input_shapes, output_shapes, 1, 1);
  const Shape& input = input_shapes[0];
  if (input.size() != 4 || input[1] != static_cast<uint32_t>(in_channels_)) {
    Fail(Concat("expected an input of shape (N,", in_channels_, ",H,W), got ",
                ShapeToString(input)));
  }
  input_h_ = static_cast<int>(input[2]);
  input_w_ = static_cast<int>(input[3]);
  output_h_ = window_.OutputHeight(input_h_);
  output_w_ = window_.OutputWidth(input_w_);
  const Shape expected{input[0], static_cast<uint32_t>(out_channels_),
                       static_cast<uint32_t>(output_h_), static_cast<uint32_t>(output_w_)};
  if (output_h_ < 1 || output_w_ < 1 || output_shapes[0] != expected) {
    Fail(Concat("input ", ShapeToString(input), " gives output ", ShapeToString(expected),
                " but the graph says ", ShapeToString(output_shapes[0])));
  }
  is_pointwise_ = window_.kernel_h == 1 && window_.kernel_w == 1 && window_.stride_h == 1 &&
                  window_.stride_w == 1 && window_.pad_top == 0 && window_.pad_bottom == 0 &&
                  window_.pad_left == 0 && window_.pad_right == 0;
  const size_t kernel_size =
      static_cast<size_t>(in_channels_ / groups_) * window_.kernel_h * window_.kernel_w;
  if (!is_pointwise_) columns_.assign(kernel_size * output_h_ * output_w_, 0.0f);
}

void Convolution::Im2Col(const Tensor& input, int group) {
  const int kernel_area = window_.kernel_h * window_.kernel_w;
  const int kernel_size = (in_channels_ / groups_) * kernel_area;
  const int output_area = output_h_ * output_w_;
#pragma omp parallel for schedule(static)
  for (int k = 0; k < kernel_size; ++k) {
    // Column k of the im2col matrix holds input channel `channel` shifted by (ky, kx).
    const int channel = group * (in_channels_ / groups_) + k / kernel_area;
    const int ky = (k % kernel_area) / window_.kernel_w;
    const int kx = k % window_.kernel_w;
    const int row_offset = ky * window_.dilation_h - window_.pad_top;
    const int col_offset = kx * window_.dilation_w - window_.pad_left;
    // Output rows whose input row row_offset + oy * stride lies inside the image.
    const int first_row =
        std::clamp((-row_offset + window_.stride_h - 1) / window_.stride_h, 0, output_h_);
    const int end_row = std::clamp(
        (input_h_ - row_offset + window_.stride_h - 1) / window_.stride_h, first_row, output_h_);
    const float* source = input.channel_data(channel);
    float* column = columns_.data() + static_cast<size_t>(k) * output_area;
    for (int ox = 0; ox < output_w_; ++ox) {
      float* target = column + ox * output_h_;  // each output column is output_h_ floats
      const int ix = ox * window_.stride_w + col_offset;
      if (ix < 0 || ix >= input_w_) {
        std::fill(target, target + output_h_, 0.0f);
        continue;
      }
      const float* input_column = source + ix * input_h_;  // one input column, column-major
      std::fill(target, target + first_row, 0.0f);
      for (int oy = first_row; oy < end_row; ++oy) {
        target[oy] = input_column[oy * window_.stride_h + row_offset];
      }
      std::fill(target + end_row, target + output_h_, 0.0f);
    }
  }
}

void Convolution::ForwardSample(const Tensor& input, Tensor* output) {
  const int group_in = in_channels_ / groups_;
  const int group_out = out_channels_ / groups_;
  const int kernel_size = group_in * window_.kernel_h * window_.kernel_w;
  const int output_area = output_h_ * output_w_;
  for (int group = 0; group < groups_; ++group) {
    const float* columns = columns_.data();
    if (is_pointwise_) {
      columns = input.channel_data(group * group_in);
    } else {
      Im2Col(input, group);
    }
    const float* weights = weights_.data() + static_cast<size_t>(group) * group_out * kernel_size;
    float* result = output->channel_data(group * group_out);
    // (output_area x kernel_size) * (kernel_size x group_out) -> output_area x group_out
    Gemm(output_area, group_out, kernel_size, columns, output_area, false, weights, kernel_size,
         false, 0.0f, result, output_area);
  }
  if (bias_.empty()) return;
#pragma omp parallel for schedule(static)
  for (int channel = 0; channel < out_channels_; ++channel) {
    float* values = output->channel_data(channel);
    const float bias = bias_[channel];
    for (int i = 0; i < output_area; ++i) values[i] += bias;
  }
}

void Convolution::Forward(const std::vector<const TensorBatch*>& inputs,
                          const std::vector<TensorBatch*>& outputs) {
  const TensorBatch& input = *inputs[0];
  TensorBatch& output = *outputs[0];
  for (size_t sample = 0; sample < input.size(); ++sample) {
    ForwardSample(input[sample], &output[sample]);
  }
}

LUMEN_REGISTER_LAYER(Convolution, "nn.Conv2d");

}  // namespace lumen
