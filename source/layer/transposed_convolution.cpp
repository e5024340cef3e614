#include "lumen/layer/transposed_convolution.hpp"

#include <algorithm>

#include "lumen/base/error.hpp"
#include "lumen/base/parallel.hpp"
#include "lumen/layer/layer_registry.hpp"
#include "lumen/math/packed_gemm.hpp"

namespace lumen {

TransposedConvolution::TransposedConvolution(const RuntimeOperator& op) : Layer(op) {
  in_channels_ = op.IntParam("in_channels");
  out_channels_ = op.IntParam("out_channels");
  groups_ = op.IntParam("groups", 1);
  window_ = ReadWindow2d(op, false);
  if (op.HasParam("padding") && op.Param("padding").type() == RuntimeParameter::Type::kString) {
    Fail("string padding is not defined for transposed convolution");
  }
  const std::vector<int> output_padding =
      op.HasParam("output_padding") ? op.IntPairParam("output_padding") : std::vector<int>{0, 0};
  output_padding_h_ = output_padding[0];
  output_padding_w_ = output_padding[1];
  if (groups_ < 1 || in_channels_ < 1 || out_channels_ < 1 || in_channels_ % groups_ != 0 ||
      out_channels_ % groups_ != 0) {
    Fail(Concat("in_channels ", in_channels_, " and out_channels ", out_channels_,
                " must be positive multiples of groups ", groups_));
  }
  // PyTorch requires output_padding < stride or < dilation.
  if (output_padding_h_ < 0 || output_padding_w_ < 0 ||
      (output_padding_h_ >= window_.stride_h && output_padding_h_ >= window_.dilation_h) ||
      (output_padding_w_ >= window_.stride_w && output_padding_w_ >= window_.dilation_w)) {
    Fail("output_padding must be smaller than either stride or dilation");
  }
  const std::vector<float> weights = op.AttributeFloats(
      "weight", {in_channels_, out_channels_ / groups_, window_.kernel_h, window_.kernel_w});
  // Each group's weights are a row-major (in/g x K) matrix: read column-major, the transpose of
  // the (in/g x K) right-hand side, which PackTransposed packs as it is.
  const int group_in = in_channels_ / groups_;
  const int kernel_size = out_channels_ / groups_ * window_.kernel_h * window_.kernel_w;
  packed_weights_.resize(groups_);
  for (int group = 0; group < groups_; ++group) {
    packed_weights_[group].PackTransposed(
        weights.data() + static_cast<size_t>(group) * group_in * kernel_size, group_in, kernel_size,
        kernel_size);
  }
  if (op.BoolParam("bias", false)) bias_ = op.AttributeFloats("bias", {out_channels_});
}

void TransposedConvolution::Prepare(const std::vector<Shape>& input_shapes,
                                    const std::vector<Shape>& output_shapes) {
  CheckArity(input_shapes, output_shapes, 1, 1);
  const Shape& input = input_shapes[0];
  if (input.size() != 4 || input[1] != static_cast<uint32_t>(in_channels_)) {
    Fail(Concat("expected an input of shape (N,", in_channels_, ",H,W), got ",
                ShapeToString(input)));
  }
  input_h_ = static_cast<int>(input[2]);
  input_w_ = static_cast<int>(input[3]);
  const Window2d& w = window_;
  output_h_ = (input_h_ - 1) * w.stride_h - w.pad_top - w.pad_bottom +
              w.dilation_h * (w.kernel_h - 1) + output_padding_h_ + 1;
  output_w_ = (input_w_ - 1) * w.stride_w - w.pad_left - w.pad_right +
              w.dilation_w * (w.kernel_w - 1) + output_padding_w_ + 1;
  const Shape expected{input[0], static_cast<uint32_t>(out_channels_),
                       static_cast<uint32_t>(std::max(output_h_, 0)),
                       static_cast<uint32_t>(std::max(output_w_, 0))};
  if (output_h_ < 1 || output_w_ < 1 || output_shapes[0] != expected) {
    Fail(Concat("input ", ShapeToString(input), " gives output ", ShapeToString(expected),
                " but the graph says ", ShapeToString(output_shapes[0])));
  }
  const size_t kernel_size =
      static_cast<size_t>(out_channels_ / groups_) * window_.kernel_h * window_.kernel_w;
  columns_.assign(kernel_size * input_h_ * input_w_, 0.0f);
}

void TransposedConvolution::Col2Im(int group, Tensor* output) const {
  const int group_out = out_channels_ / groups_;
  const int kernel_area = window_.kernel_h * window_.kernel_w;
  const int input_area = input_h_ * input_w_;
  // Each output channel gathers from its own kH*kW columns, so channels run in parallel.
  ParallelFor(group_out, [&](int channel) {
    float* target = output->channel_data(group * group_out + channel);
    for (int k = 0; k < kernel_area; ++k) {
      const int ky = k / window_.kernel_w;
      const int kx = k % window_.kernel_w;
      const float* column =
          columns_.data() + static_cast<size_t>(channel * kernel_area + k) * input_area;
      for (int ix = 0; ix < input_w_; ++ix) {
        const int ox = ix * window_.stride_w - window_.pad_left + kx * window_.dilation_w;
        if (ox < 0 || ox >= output_w_) continue;
        for (int iy = 0; iy < input_h_; ++iy) {
          const int oy = iy * window_.stride_h - window_.pad_top + ky * window_.dilation_h;
          if (oy < 0 || oy >= output_h_) continue;
          target[ox * output_h_ + oy] += column[ix * input_h_ + iy];
        }
      }
    }
  });
}

void TransposedConvolution::Forward(const std::vector<const TensorBatch*>& inputs,
                                    const std::vector<TensorBatch*>& outputs) {
  const int group_in = in_channels_ / groups_;
  const int input_area = input_h_ * input_w_;
  const int output_area = output_h_ * output_w_;
  for (size_t sample = 0; sample < inputs[0]->size(); ++sample) {
    const Tensor& input = (*inputs[0])[sample];
    Tensor& output = (*outputs[0])[sample];
    for (int channel = 0; channel < out_channels_; ++channel) {
      std::fill_n(output.channel_data(channel), output_area, bias_.empty() ? 0.0f : bias_[channel]);
    }
    for (int group = 0; group < groups_; ++group) {
      PackedGemm(input_area, input.channel_data(group * group_in), input_area,
                 packed_weights_[group], columns_.data(), input_area);
      Col2Im(group, &output);
    }
  }
}

LUMEN_REGISTER_LAYER(TransposedConvolution, "nn.ConvTranspose2d");

}  // namespace lumen
