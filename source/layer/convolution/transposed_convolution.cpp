// nn.ConvTranspose2d: the gradient of a convolution, used to upsample (U-Net decoders, FCNs).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/checked_math.hpp"
#include "base/thread_pool.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "layer/window.hpp"
#include "lumen/error.hpp"
#include "math/packed_gemm.hpp"
#include "math/window.hpp"

namespace lumen {

// Transposed convolution with stride, padding, output_padding, dilation, groups and bias.
//
// Every input pixel scatters a weighted kernel into the output. As matrices, per group:
// columns (H_in*W_in x K) = X (H_in*W_in x C_in/g) * W (C_in/g x K) with K = C_out/g * kH * kW,
// one GEMM; then col2im adds each column's values into the output pixels it lands on. The input is
// taken in blocks of whole input columns (about 1 MB of `columns` each), so the scratch stays
// cache-sized whatever the map size.
class TransposedConvolution : public Layer {
 public:
  // Reads the nn.ConvTranspose2d parameters and packs the weights.
  explicit TransposedConvolution(const LayerConfig& config);
  // (N, in_channels, H, W) or (in_channels, H, W) -> the same with out_channels and
  // (H - 1) * stride - padding_before - padding_after + dilation * (kernel - 1) + output_padding
  // + 1.
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const override;
  // Sizes the blocks for the input size and reserves their scratch.
  std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                      const std::vector<Shape>& output_shapes,
                                      const PrepareContext& context) const override;
  // Computes each sample.
  void Forward(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs,
               const ForwardContext& context) const override;

 private:
  struct Sizes;  // the planes of one sample and the block size (the layer's state)

  // The sizes for `input`; throws lumen::Error naming the layer when the input is not
  // (N, in_channels, H, W) or (in_channels, H, W) or the output would be empty.
  Sizes SampleSizes(const Shape& input) const;
  // Adds `columns`, the GEMM result for the input columns [first_column, +block_columns) of one
  // group, into that group's output channels.
  void Col2Im(const Sizes& sizes, int group, int first_column, int block_columns,
              const float* columns, float* output, const ComputeContext& context) const;

  int in_channels_ = 0;
  int out_channels_ = 0;
  int groups_ = 1;
  Window2d window_;
  int output_padding_h_ = 0, output_padding_w_ = 0;
  int kernel_size_ = 0;  // K: out_channels / groups * kH * kW, the columns per input pixel
  // PyTorch's (in, out/groups, kH, kW) weights: per group the (in/g x K) right-hand side, packed.
  std::vector<PackedMatrix> packed_weights_;
  std::vector<float> bias_;  // empty without bias
};

// What Prepare works out for one input size: the planes of a sample and the blocks of input
// columns Forward multiplies at a time.
struct TransposedConvolution::Sizes : public LayerState {
  int input_h = 0, input_w = 0;
  int output_h = 0, output_w = 0;
  int block_columns = 1;      // input columns per block
  size_t columns_floats = 0;  // the GEMM result of one block: (block_columns * input_h) x K
  size_t packing_floats = 0;  // PackedGemm's scratch for one block
};

TransposedConvolution::TransposedConvolution(const LayerConfig& config) : Layer(config) {
  in_channels_ = config.IntParam("in_channels");
  out_channels_ = config.IntParam("out_channels");
  groups_ = config.IntParam("groups", 1);
  const std::string padding_mode = config.StringParam("padding_mode", "zeros");
  if (padding_mode != "zeros") {
    Fail(Concat("padding_mode '", padding_mode, "' is not supported (only 'zeros')"));
  }
  if (config.HasParam("padding") && config.Param("padding").type() == Parameter::Type::kString) {
    Fail("string padding is not defined for transposed convolution");
  }
  window_ = ReadWindow2d(config, false);
  const std::vector<int> output_padding = config.HasParam("output_padding")
                                              ? config.IntPairParam("output_padding")
                                              : std::vector<int>{0, 0};
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
  // The kernels index the K columns of one input pixel with ints.
  const int64_t taps = int64_t{window_.kernel_h} * window_.kernel_w;  // < 2^62: no overflow
  if (taps > INT_MAX || taps * (out_channels_ / groups_) > INT_MAX) {
    Fail(Concat("the weights of one input channel (", out_channels_ / groups_, "x",
                window_.kernel_h, "x", window_.kernel_w, ") are too many"));
  }
  kernel_size_ = static_cast<int>(taps * (out_channels_ / groups_));
  const std::vector<float> weights = config.AttributeFloats(
      "weight", {in_channels_, out_channels_ / groups_, window_.kernel_h, window_.kernel_w});
  // Each group's weights are a row-major (in/g x K) matrix: read column-major, the transpose of
  // the (in/g x K) right-hand side, which PackTransposed packs as it is.
  const int group_in = in_channels_ / groups_;
  packed_weights_.resize(static_cast<size_t>(groups_));
  for (int group = 0; group < groups_; ++group) {
    packed_weights_[group].PackTransposed(
        weights.data() + static_cast<size_t>(group) * group_in * kernel_size_, group_in,
        kernel_size_, kernel_size_, ComputeContext{});
  }
  if (config.BoolParam("bias", false)) bias_ = config.AttributeFloats("bias", {out_channels_});
}

TransposedConvolution::Sizes TransposedConvolution::SampleSizes(const Shape& input) const {
  const size_t rank = input.size();
  if ((rank != 3 && rank != 4) || input[rank - 3] != static_cast<uint32_t>(in_channels_)) {
    Fail(Concat("expected an input of shape (N,", in_channels_, ",H,W) or (", in_channels_,
                ",H,W), got ", ShapeToString(input)));
  }
  if (input[rank - 2] == 0 || input[rank - 1] == 0) {
    Fail(Concat("the input ", ShapeToString(input), " has an empty plane"));
  }
  const Window2d& w = window_;
  // The extent an input of `size` scatters over, before the padding is cut off: every index the
  // kernels compute lies in [-padding, extent + stride), so that must fit in an int.
  const auto extent = [](int64_t size, int stride, int dilation, int kernel, int output_padding) {
    return (size - 1) * stride + int64_t{dilation} * (kernel - 1) + output_padding + 1;
  };
  const int64_t extent_h =
      extent(input[rank - 2], w.stride_h, w.dilation_h, w.kernel_h, output_padding_h_);
  const int64_t extent_w =
      extent(input[rank - 1], w.stride_w, w.dilation_w, w.kernel_w, output_padding_w_);
  const int64_t output_h = extent_h - w.pad_top - w.pad_bottom;
  const int64_t output_w = extent_w - w.pad_left - w.pad_right;
  if (output_h < 1 || output_w < 1) {
    Fail(Concat("the input ", ShapeToString(input), " gives an empty output (", output_h, "x",
                output_w, "): the padding cuts off more than the ", extent_h, "x", extent_w,
                " the kernel scatters over"));
  }
  Sizes sizes;
  try {
    sizes.input_h = CheckedInt(input[rank - 2], "transposed convolution input height");
    sizes.input_w = CheckedInt(input[rank - 1], "transposed convolution input width");
    CheckedInt(extent_h + w.stride_h, "transposed convolution output height plus stride");
    CheckedInt(extent_w + w.stride_w, "transposed convolution output width plus stride");
    sizes.output_h = static_cast<int>(output_h);
    sizes.output_w = static_cast<int>(output_w);
    CheckedInt(int64_t{sizes.input_h} * sizes.input_w, "transposed convolution input plane");
    CheckedInt(output_h * output_w, "transposed convolution output plane");
  } catch (const Error& error) {
    Fail(Concat("input ", ShapeToString(input), ": ", error.what()));
  }
  return sizes;
}

std::vector<Shape> TransposedConvolution::OutputShapes(
    const std::vector<Shape>& input_shapes) const {
  CheckInputCount(input_shapes, 1);
  const Sizes sizes = SampleSizes(input_shapes[0]);
  Shape output = input_shapes[0];
  const size_t rank = output.size();
  output[rank - 3] = static_cast<uint32_t>(out_channels_);
  output[rank - 2] = static_cast<uint32_t>(sizes.output_h);
  output[rank - 1] = static_cast<uint32_t>(sizes.output_w);
  return {output};
}

std::unique_ptr<LayerState> TransposedConvolution::Prepare(
    const std::vector<Shape>& input_shapes, const std::vector<Shape>& /*output_shapes*/,
    const PrepareContext& context) const {
  CheckInputCount(input_shapes, 1);
  auto sizes = std::make_unique<Sizes>(SampleSizes(input_shapes[0]));
  // Blocks of whole input columns, about 1 MB of columns each (at least one input column), as in
  // the im2col convolution: the GEMM result of a block stays in the L2 cache for col2im.
  const int64_t column_floats = int64_t{sizes->input_h} * kernel_size_;
  sizes->block_columns =
      static_cast<int>(std::clamp<int64_t>(262144 / column_floats, 1, sizes->input_w));
  const int block_pixels = sizes->block_columns * sizes->input_h;
  sizes->columns_floats =
      CheckedMultiply(static_cast<size_t>(block_pixels), static_cast<size_t>(kernel_size_),
                      "transposed convolution block size");
  sizes->packing_floats = PackedGemmScratchSize(block_pixels, in_channels_ / groups_);
  if (context.workspace != nullptr) {
    context.workspace->Reserve(ScratchSlot::kFirst, sizes->columns_floats);
    context.workspace->Reserve(ScratchSlot::kGemmPacking, sizes->packing_floats);
  }
  return sizes;
}

void TransposedConvolution::Col2Im(const Sizes& sizes, int group, int first_column,
                                   int block_columns, const float* columns, float* output,
                                   const ComputeContext& context) const {
  const Window2d& w = window_;
  const int group_out = out_channels_ / groups_;
  const int kernel_area = w.kernel_h * w.kernel_w;
  const int block_pixels = block_columns * sizes.input_h;
  const size_t output_area = static_cast<size_t>(sizes.output_h) * sizes.output_w;
  // Each output channel gathers from its own kH*kW columns, so channels run in parallel.
  ParallelFor(context.pool, group_out, [&](std::ptrdiff_t channel) {
    float* target = output + (group * group_out + channel) * output_area;
    for (int k = 0; k < kernel_area; ++k) {
      const int ky = k / w.kernel_w;
      const int kx = k % w.kernel_w;
      // Input rows iy whose output row (iy * stride + row_offset) lies inside the output.
      const int row_offset = ky * w.dilation_h - w.pad_top;
      const int first_row =
          std::clamp((-row_offset + w.stride_h - 1) / w.stride_h, 0, sizes.input_h);
      const int end_row = std::clamp((sizes.output_h - row_offset + w.stride_h - 1) / w.stride_h,
                                     first_row, sizes.input_h);
      const float* column =
          columns + (static_cast<size_t>(channel) * kernel_area + k) * block_pixels;
      for (int c = 0; c < block_columns; ++c) {
        const int ox = (first_column + c) * w.stride_w - w.pad_left + kx * w.dilation_w;
        if (ox < 0 || ox >= sizes.output_w) continue;
        float* output_column = target + static_cast<size_t>(ox) * sizes.output_h;
        const float* input_column = column + static_cast<size_t>(c) * sizes.input_h;
        for (int iy = first_row; iy < end_row; ++iy) {
          output_column[iy * w.stride_h + row_offset] += input_column[iy];
        }
      }
    }
  });
}

void TransposedConvolution::Forward(const std::vector<const Tensor*>& inputs,
                                    const std::vector<Tensor*>& outputs,
                                    const ForwardContext& context) const {
  const Sizes& sizes = context.state_as<Sizes>();
  const ComputeContext& compute = context.compute;
  const int group_in = in_channels_ / groups_;
  const int input_area = sizes.input_h * sizes.input_w;
  const size_t output_area = static_cast<size_t>(sizes.output_h) * sizes.output_w;
  const Tensor& input_tensor = *inputs[0];
  Tensor& output_tensor = *outputs[0];
  const size_t samples = input_tensor.rank() == 4 ? input_tensor.shape()[0] : 1;
  // The GEMM result of one block, shared by the threads: they compute it together, then scatter
  // it together. So it is the calling thread's scratch.
  float* columns = compute.Scratch(ScratchSlot::kFirst, sizes.columns_floats);
  for (size_t sample = 0; sample < samples; ++sample) {
    const float* input = input_tensor.data() + sample * in_channels_ * input_area;
    float* output = output_tensor.data() + sample * out_channels_ * output_area;
    ParallelFor(compute.pool, out_channels_, [&](std::ptrdiff_t channel) {
      std::fill_n(output + channel * output_area, output_area,
                  bias_.empty() ? 0.0f : bias_[channel]);
    });
    for (int group = 0; group < groups_; ++group) {
      for (int first_column = 0; first_column < sizes.input_w;
           first_column += sizes.block_columns) {
        const int block_columns = std::min(sizes.block_columns, sizes.input_w - first_column);
        const int block_pixels = block_columns * sizes.input_h;
        // Input pixels of whole columns are consecutive rows of the group's (H*W x C_in/g) X.
        PackedGemm(block_pixels,
                   input + static_cast<size_t>(group) * group_in * input_area +
                       static_cast<size_t>(first_column) * sizes.input_h,
                   input_area, packed_weights_[group], columns, block_pixels, compute);
        Col2Im(sizes, group, first_column, block_columns, columns, output, compute);
      }
    }
  }
}

LUMEN_REGISTER_LAYER(TransposedConvolution, "nn.ConvTranspose2d");

}  // namespace lumen
