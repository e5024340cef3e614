// nn.ConvTranspose1d/2d/3d and F.conv_transpose1d/2d/3d: the gradient of a convolution, used to
// upsample (U-Net decoders, FCNs, 3-D segmentation).
#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/checked_math.hpp"
#include "base/thread_pool.hpp"
#include "layer/convolution/convolution_axes.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "math/packed_gemm.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// Transposed convolution with stride, padding, output_padding, dilation, groups and bias, over 1,
// 2 or 3 spatial axes: every axis is (depth, height, width), the missing leading ones of extent 1
// (a (N, C, H, W) tensor is a volume of depth 1 as it is; a 1-D input is staged as one row per
// channel, see convolution_axes.hpp).
//
// Every input pixel scatters a weighted kernel into the output. As matrices, per group:
// columns (pixels x K) = X (pixels x C_in/g) * W (C_in/g x K) with K = C_out/g * kD * kH * kW,
// one GEMM; then col2vol adds each column's values into the output pixels it lands on. The input
// is taken in blocks of whole input columns (one (z, x) position with all its rows, about 1 MB of
// `columns` each), so the scratch stays cache-sized whatever the map size.
//
// nn.ConvTranspose*d packs its weights once; F.conv_transpose*d reads weight and bias from its
// operands and packs them at every Forward.
class TransposedConvolution : public Layer {
 public:
  // Reads the parameters and (nn.ConvTranspose*d) packs the weights.
  explicit TransposedConvolution(const LayerConfig& config);
  // (N, C_in, *spatial) or (C_in, *spatial) -> the same with C_out and, per axis,
  // (size - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1.
  Shapes OutputShapes(const Shapes&) const override;
  // Sizes the blocks for the input size and reserves their scratch.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Computes each sample.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;

 private:
  struct Sizes;  // the extents of one sample and the block size (the layer's state)

  // Channels and kernel extents: the layer's own, or (F.conv_transpose*d) the weight operand's.
  struct Geometry {
    int in_channels = 0, out_channels = 0;
    std::array<int, 3> kernel{1, 1, 1};  // (depth, height, width)
    int kernel_size = 0;                 // K: out_channels / groups * kD * kH * kW
  };
  // The geometry for these input shapes; throws lumen::Error naming the layer on a weight or bias
  // operand of the wrong shape.
  Geometry GeometryFor(const std::vector<Shape>& input_shapes) const;
  // The sizes for `input`; throws lumen::Error naming the layer when the input is not
  // (N, C_in, *spatial) or (C_in, *spatial) or the output would be empty.
  Sizes SampleSizes(const Geometry& geometry, const Shape& input) const;
  // Packs each group's (C_in/g x K) right-hand side of PyTorch's (in, out/groups, *kernel)
  // weights, row-major.
  std::vector<PackedMatrix> PackWeights(const Geometry& geometry, const float* weights,
                                        const ComputeContext& context) const;
  // Adds `columns`, the GEMM result for the input columns [first_column, +block_columns) of one
  // group, into that group's output channels.
  void Col2Vol(const Sizes& sizes, int group, int first_column, int block_columns,
               const float* columns, float* output, const ComputeContext& context) const;

  int spatial_rank_ = 2;
  bool functional_ = false;
  bool has_bias_input_ = false;
  int groups_ = 1;
  // Per axis (depth, height, width); the axes the op lacks have stride 1, no padding, dilation 1.
  std::array<int, 3> stride_{1, 1, 1}, padding_{0, 0, 0}, dilation_{1, 1, 1};
  std::array<int, 3> output_padding_{0, 0, 0};
  Geometry geometry_;                         // nn.ConvTranspose*d
  std::vector<PackedMatrix> packed_weights_;  // nn.ConvTranspose*d, one per group
  std::vector<float> bias_;                   // nn.ConvTranspose*d; empty without bias
};

// What Prepare works out for one input size: the extents of a sample and the blocks of input
// columns Forward multiplies at a time; for a 1-D input, the staging of input and output.
struct TransposedConvolution::Sizes : public LayerState {
  Geometry geometry;
  std::array<int, 3> input{}, output{};  // (depth, height, width)
  int block_columns = 1;                 // input columns per block
  size_t columns_floats = 0;  // the GEMM result of one block: (block_columns * input_h) x K
  size_t packing_floats = 0;  // PackedGemm's scratch for one block
  // A 1-D operator's input as one row per channel, and its output before it goes back to the
  // tensor's layout.
  StridedCopy input_copy, output_copy;
  std::vector<float> staged_input, staged_output;

  int input_volume() const { return input[0] * input[1] * input[2]; }
  size_t output_volume() const { return static_cast<size_t>(output[0]) * output[1] * output[2]; }
  size_t bytes() const override {
    return (staged_input.size() + staged_output.size()) * sizeof(float);
  }
};

TransposedConvolution::TransposedConvolution(const LayerConfig& config) : Layer(config) {
  const std::string& type = config.type();
  functional_ = type.rfind("F.", 0) == 0;
  spatial_rank_ = SpatialRankOf(type);
  groups_ = config.IntParam("groups", 1);
  const std::string padding_mode = config.StringParam("padding_mode", "zeros");
  if (padding_mode != "zeros") {
    Fail(Concat("padding_mode '", padding_mode, "' is not supported (only 'zeros')"));
  }
  if (config.HasParam("padding") && config.Param("padding").type() == Parameter::Type::kString) {
    Fail("string padding is not defined for transposed convolution");
  }
  stride_ = ReadAxes(config, "stride", spatial_rank_, 1, 1);
  padding_ = ReadAxes(config, "padding", spatial_rank_, 0, 0);
  dilation_ = ReadAxes(config, "dilation", spatial_rank_, 1, 1);
  output_padding_ = ReadAxes(config, "output_padding", spatial_rank_, 0, 0);
  for (int axis = 0; axis < 3; ++axis) {
    if (stride_[axis] < 1 || dilation_[axis] < 1) Fail("stride and dilation must be positive");
    if (padding_[axis] < 0) Fail("negative padding");
    // PyTorch requires output_padding < stride or < dilation.
    if (output_padding_[axis] < 0 ||
        (output_padding_[axis] >= stride_[axis] && output_padding_[axis] >= dilation_[axis])) {
      Fail("output_padding must be smaller than either stride or dilation");
    }
  }
  if (groups_ < 1) Fail(Concat("groups must be positive, got ", groups_));
  if (functional_) {
    if (config.input_count() != 2 && config.input_count() != 3) {
      Fail(Concat("expected 2 or 3 inputs (input, weight, bias), got ", config.input_count()));
    }
    has_bias_input_ = config.input_count() == 3;
    return;
  }
  Geometry& g = geometry_;
  g.in_channels = config.IntParam("in_channels");
  g.out_channels = config.IntParam("out_channels");
  g.kernel = ReadAxes(config, "kernel_size", spatial_rank_, 1, 1);
  if (g.in_channels < 1 || g.out_channels < 1 || g.in_channels % groups_ != 0 ||
      g.out_channels % groups_ != 0) {
    Fail(Concat("in_channels ", g.in_channels, " and out_channels ", g.out_channels,
                " must be positive multiples of groups ", groups_));
  }
  if (g.kernel[0] < 1 || g.kernel[1] < 1 || g.kernel[2] < 1) {
    Fail("kernel_size must be positive");
  }
  // The kernels index the K columns of one input pixel with ints.
  const int64_t taps = int64_t{g.kernel[0]} * g.kernel[1] * g.kernel[2];  // < 2^93: see below
  if (taps > INT_MAX || taps * (g.out_channels / groups_) > INT_MAX) {
    Fail(Concat("the weights of one input channel (", g.out_channels / groups_, "x", taps,
                ") are too many"));
  }
  g.kernel_size = static_cast<int>(taps * (g.out_channels / groups_));
  std::vector<int> weight_shape{g.in_channels, g.out_channels / groups_};
  for (int axis = 3 - spatial_rank_; axis < 3; ++axis) weight_shape.push_back(g.kernel[axis]);
  const std::vector<float> weights = config.AttributeFloats("weight", weight_shape);
  packed_weights_ = PackWeights(g, weights.data(), ComputeContext{});
  if (config.BoolParam("bias", false)) bias_ = config.AttributeFloats("bias", {g.out_channels});
}

std::vector<PackedMatrix> TransposedConvolution::PackWeights(const Geometry& geometry,
                                                             const float* weights,
                                                             const ComputeContext& context) const {
  // Each group's weights are a row-major (in/g x K) matrix: read column-major, the transpose of
  // the (in/g x K) right-hand side, which PackTransposed packs as it is.
  const int group_in = geometry.in_channels / groups_;
  std::vector<PackedMatrix> packed(static_cast<size_t>(groups_));
  for (int group = 0; group < groups_; ++group) {
    packed[group].PackTransposed(
        weights + static_cast<size_t>(group) * group_in * geometry.kernel_size, group_in,
        geometry.kernel_size, geometry.kernel_size, context);
  }
  return packed;
}

TransposedConvolution::Geometry TransposedConvolution::GeometryFor(
    const std::vector<Shape>& input_shapes) const {
  if (!functional_) {
    CheckInputCount(input_shapes, 1);
    return geometry_;
  }
  CheckInputCount(input_shapes, has_bias_input_ ? 3 : 2);
  const Shape& weight = input_shapes[1];
  const auto rank = static_cast<size_t>(spatial_rank_) + 2;
  bool valid = weight.size() == rank && weight[0] % groups_ == 0;
  for (size_t d = 0; valid && d < rank; ++d) valid = weight[d] > 0;
  int64_t taps = 1;
  for (size_t d = 2; valid && d < rank; ++d) taps *= weight[d];
  if (!valid || taps * weight[1] * groups_ > INT_MAX) {
    const char* kernel = spatial_rank_ == 1 ? "k" : spatial_rank_ == 2 ? "kH, kW" : "kD, kH, kW";
    Fail(Concat("expected a weight of shape (C_in, C_out/groups, ", kernel,
                ") with C_in a multiple of groups ", groups_, ", got ", ShapeToString(weight)));
  }
  Geometry geometry;
  geometry.in_channels = static_cast<int>(weight[0]);
  geometry.out_channels = static_cast<int>(weight[1]) * groups_;
  for (int axis = 0; axis < spatial_rank_; ++axis) {
    geometry.kernel[3 - spatial_rank_ + axis] = static_cast<int>(weight[2 + axis]);
  }
  geometry.kernel_size = static_cast<int>(taps * weight[1]);
  if (has_bias_input_ && input_shapes[2] != Shape{static_cast<uint32_t>(geometry.out_channels)}) {
    Fail(Concat("expected a bias of shape (", geometry.out_channels, "), got ",
                ShapeToString(input_shapes[2])));
  }
  return geometry;
}

TransposedConvolution::Sizes TransposedConvolution::SampleSizes(const Geometry& geometry,
                                                                const Shape& input) const {
  const size_t rank = input.size();
  const auto spatial = static_cast<size_t>(spatial_rank_);
  const char* axes = spatial_rank_ == 1 ? "L" : spatial_rank_ == 2 ? "H,W" : "D,H,W";
  if ((rank != spatial + 1 && rank != spatial + 2) ||
      input[rank - spatial - 1] != static_cast<uint32_t>(geometry.in_channels)) {
    Fail(Concat("expected an input of shape (N,", geometry.in_channels, ",", axes, ") or (",
                geometry.in_channels, ",", axes, "), got ", ShapeToString(input)));
  }
  const Shape volume = ViewAsVolume(input, spatial_rank_).shape;
  Sizes sizes;
  sizes.geometry = geometry;
  int64_t output[3];
  int64_t elements[2] = {1, 1};  // input and output volume
  for (int axis = 0; axis < 3; ++axis) {
    if (volume[2 + axis] == 0) {
      Fail(Concat("the input ", ShapeToString(input), " has an empty ", axes));
    }
    // The extent an input scatters over, before the padding is cut off: every index the kernels
    // compute lies in [-padding, extent + stride), so that must fit in an int.
    const int64_t extent = (int64_t{volume[2 + axis]} - 1) * stride_[axis] +
                           int64_t{dilation_[axis]} * (geometry.kernel[axis] - 1) +
                           output_padding_[axis] + 1;
    output[axis] = extent - 2 * int64_t{padding_[axis]};
    if (output[axis] < 1) {
      Fail(Concat("the input ", ShapeToString(input), " gives an empty output: the padding ",
                  padding_[axis], " cuts off more than the ", extent, " the kernel scatters over"));
    }
    try {
      sizes.input[axis] = CheckedInt(volume[2 + axis], "transposed convolution input extent");
      CheckedInt(extent + stride_[axis], "transposed convolution output extent plus stride");
      sizes.output[axis] = static_cast<int>(output[axis]);
      elements[0] = CheckedInt(elements[0] * volume[2 + axis], "transposed convolution input");
      elements[1] = CheckedInt(elements[1] * output[axis], "transposed convolution output");
    } catch (const Error& error) {
      Fail(Concat("input ", ShapeToString(input), ": ", error.what()));
    }
  }
  return sizes;
}

Shapes TransposedConvolution::OutputShapes(const Shapes& input_shapes) const {
  const Geometry geometry = GeometryFor(input_shapes);
  const Sizes sizes = SampleSizes(geometry, input_shapes[0]);
  return {VolumeOutputShape(input_shapes[0], spatial_rank_, geometry.out_channels, sizes.output)};
}

StatePointer TransposedConvolution::Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                                            const PrepareContext& context) const {
  const Geometry geometry = GeometryFor(input_shapes);
  auto sizes = std::make_unique<Sizes>(SampleSizes(geometry, input_shapes[0]));
  // Blocks of whole input columns, about 1 MB of columns each (at least one input column), as in
  // the im2col convolution: the GEMM result of a block stays in the L2 cache for col2vol.
  const int64_t column_floats = int64_t{sizes->input[1]} * geometry.kernel_size;
  sizes->block_columns = static_cast<int>(
      std::clamp<int64_t>(262144 / column_floats, 1, int64_t{sizes->input[0]} * sizes->input[2]));
  const int block_pixels = sizes->block_columns * sizes->input[1];
  sizes->columns_floats =
      CheckedMultiply(static_cast<size_t>(block_pixels), static_cast<size_t>(geometry.kernel_size),
                      "transposed convolution block size");
  sizes->packing_floats = PackedGemmScratchSize(block_pixels, geometry.in_channels / groups_);
  if (context.workspace != nullptr) {
    context.workspace->Reserve(ScratchSlot::kFirst, sizes->columns_floats);
    context.workspace->Reserve(ScratchSlot::kGemmPacking, sizes->packing_floats);
  }
  if (spatial_rank_ == 1) {
    sizes->input_copy = ChannelsInnermostToRows(input_shapes[0]);
    sizes->output_copy = RowsToChannelsInnermost(output_shapes[0]);
    sizes->staged_input.resize(ShapeElementCount(input_shapes[0]));
    sizes->staged_output.resize(ShapeElementCount(output_shapes[0]));
  }
  return sizes;
}

void TransposedConvolution::Col2Vol(const Sizes& sizes, int group, int first_column,
                                    int block_columns, const float* columns, float* output,
                                    const ComputeContext& context) const {
  const std::array<int, 3>& kernel = sizes.geometry.kernel;
  const int group_out = sizes.geometry.out_channels / groups_;
  const int taps = kernel[0] * kernel[1] * kernel[2];
  const int input_h = sizes.input[1];
  const int output_h = sizes.output[1];
  const int block_pixels = block_columns * input_h;
  const size_t output_volume = sizes.output_volume();
  // Each output channel gathers from its own taps' columns, so channels run in parallel.
  ParallelFor(context.pool, group_out, [&](std::ptrdiff_t channel) {
    float* target = output + (group * group_out + channel) * output_volume;
    for (int k = 0; k < taps; ++k) {
      const int kz = k / (kernel[1] * kernel[2]);
      const int ky = k / kernel[2] % kernel[1];
      const int kx = k % kernel[2];
      // Input rows iy whose output row (iy * stride + row_offset) lies inside the output.
      const int row_offset = ky * dilation_[1] - padding_[1];
      const int first_row = std::clamp((-row_offset + stride_[1] - 1) / stride_[1], 0, input_h);
      const int end_row =
          std::clamp((output_h - row_offset + stride_[1] - 1) / stride_[1], first_row, input_h);
      const float* column = columns + (static_cast<size_t>(channel) * taps + k) * block_pixels;
      for (int c = 0; c < block_columns; ++c) {
        const int iz = (first_column + c) / sizes.input[2];
        const int ix = (first_column + c) % sizes.input[2];
        const int oz = iz * stride_[0] - padding_[0] + kz * dilation_[0];
        const int ox = ix * stride_[2] - padding_[2] + kx * dilation_[2];
        if (oz < 0 || oz >= sizes.output[0] || ox < 0 || ox >= sizes.output[2]) continue;
        float* output_column = target + (static_cast<size_t>(oz) * sizes.output[2] + ox) * output_h;
        const float* input_column = column + static_cast<size_t>(c) * input_h;
        for (int iy = first_row; iy < end_row; ++iy) {
          output_column[iy * stride_[1] + row_offset] += input_column[iy];
        }
      }
    }
  });
}

void TransposedConvolution::Forward(const InputTensors& inputs, const OutputTensors& outputs,
                                    const ForwardContext& context) const {
  Sizes& sizes = context.state_as<Sizes>();
  const ComputeContext& compute = context.compute;
  const Geometry& geometry = sizes.geometry;
  std::vector<PackedMatrix> operand_weights;
  std::vector<float> operand_bias;
  if (functional_) {
    // The weights may change from run to run: pack this run's.
    operand_weights = PackWeights(geometry, inputs[1]->ToRowMajor().data(), compute);
    if (has_bias_input_) operand_bias = inputs[2]->ToRowMajor();
  }
  const std::vector<PackedMatrix>& weights = functional_ ? operand_weights : packed_weights_;
  const std::vector<float>& bias = functional_ ? operand_bias : bias_;
  const int group_in = geometry.in_channels / groups_;
  const int input_volume = sizes.input_volume();
  const size_t output_volume = sizes.output_volume();
  const int input_columns = sizes.input[0] * sizes.input[2];
  const float* input_data = inputs[0]->data();
  float* output_data = outputs[0]->data();
  if (spatial_rank_ == 1) {
    RunStridedCopy(sizes.input_copy, input_data, sizes.staged_input.data(), compute.pool);
    input_data = sizes.staged_input.data();
    output_data = sizes.staged_output.data();
  }
  const size_t samples =
      inputs[0]->rank() == static_cast<size_t>(spatial_rank_) + 2 ? inputs[0]->shape()[0] : 1;
  // The GEMM result of one block, shared by the threads: they compute it together, then scatter
  // it together. So it is the calling thread's scratch.
  float* columns = compute.Scratch(ScratchSlot::kFirst, sizes.columns_floats);
  for (size_t sample = 0; sample < samples; ++sample) {
    const float* input = input_data + sample * geometry.in_channels * input_volume;
    float* output = output_data + sample * geometry.out_channels * output_volume;
    ParallelFor(compute.pool, geometry.out_channels, [&](std::ptrdiff_t channel) {
      std::fill_n(output + channel * output_volume, output_volume,
                  bias.empty() ? 0.0f : bias[channel]);
    });
    for (int group = 0; group < groups_; ++group) {
      for (int first_column = 0; first_column < input_columns;
           first_column += sizes.block_columns) {
        const int block_columns = std::min(sizes.block_columns, input_columns - first_column);
        const int block_pixels = block_columns * sizes.input[1];
        // Input pixels of whole columns are consecutive rows of the group's (pixels x C_in/g) X.
        PackedGemm(block_pixels,
                   input + static_cast<size_t>(group) * group_in * input_volume +
                       static_cast<size_t>(first_column) * sizes.input[1],
                   input_volume, weights[group], columns, block_pixels, compute);
        Col2Vol(sizes, group, first_column, block_columns, columns, output, compute);
      }
    }
  }
  if (spatial_rank_ == 1) {
    RunStridedCopy(sizes.output_copy, sizes.staged_output.data(), outputs[0]->data(), compute.pool);
  }
}

LUMEN_REGISTER_LAYER(TransposedConvolution, "nn.ConvTranspose1d", "nn.ConvTranspose2d",
                     "nn.ConvTranspose3d", "F.conv_transpose1d", "F.conv_transpose2d",
                     "F.conv_transpose3d");

}  // namespace lumen
