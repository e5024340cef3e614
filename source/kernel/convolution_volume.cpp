#include "kernel/convolution_volume.hpp"

#include <algorithm>
#include <cstdint>

#include "base/checked_math.hpp"
#include "base/thread_pool.hpp"
#include "math/window.hpp"

namespace lumen {
namespace {

// Floats of vol2col rows one block aims at (about 1 MB): as the 2-D im2col, large enough that a
// pass over the packed weights computes many rows, small enough to stay in the L2 cache.
constexpr int64_t kBlockFloats = 262144;

// Output positions o along one axis whose input index o * stride + offset lies in [0, input):
// [first, end), clamped to [0, output).
void InsideRange(int offset, int stride, int input, int output, int* first, int* end) {
  *first = std::clamp((-offset + stride - 1) / stride, 0, output);
  *end = std::clamp((input - offset + stride - 1) / stride, *first, output);
}

// K, the depth of the vol2col matrix: the weights of one output channel.
int VolumeKernelSize(const VolumeConvolutionSpec& spec) {
  const Window2d& w = spec.plane.window;
  return CheckedInt(int64_t{spec.plane.in_channels / spec.plane.groups} * spec.depth.kernel *
                        w.kernel_h * w.kernel_w,
                    "vol2col depth");
}

}  // namespace

VolumeShape MakeVolumeShape(const VolumeConvolutionSpec& spec, int input_d, int input_h,
                            int input_w) {
  const WindowAxis& depth = spec.depth;
  VolumeShape shape;
  shape.input_d = input_d;
  shape.input_h = input_h;
  shape.input_w = input_w;
  shape.output_d = SlidingOutputSize(input_d, depth.kernel, depth.stride, depth.dilation,
                                     depth.pad_before, depth.pad_after, false);
  // MakeConvolutionShape checks the plane sizes and the padded extents fit in ints.
  const ConvolutionShape plane = MakeConvolutionShape(spec.plane.window, input_h, input_w);
  shape.output_h = plane.output_h;
  shape.output_w = plane.output_w;
  CheckedInt(int64_t{input_d} + depth.pad_before + depth.pad_after + depth.stride,
             "convolution padded input depth plus stride");
  CheckedInt(int64_t{input_d} * input_h * input_w, "convolution input volume");
  CheckedInt(int64_t{shape.output_d} * shape.output_h * shape.output_w,
             "convolution output volume");
  return shape;
}

void ReferenceVolumeConvolution(const VolumeConvolutionSpec& spec, const VolumeShape& s,
                                const float* input, float* output, const ComputeContext& context) {
  const ConvolutionSpec& p = spec.plane;
  const Window2d& w = p.window;
  const WindowAxis& d = spec.depth;
  const int group_in = p.in_channels / p.groups;
  const int group_out = p.out_channels / p.groups;
  const size_t input_area = static_cast<size_t>(s.input_h) * s.input_w;
  const size_t output_area = static_cast<size_t>(s.output_h) * s.output_w;
  ParallelFor(context.pool, p.out_channels, [&](std::ptrdiff_t index) {
    const int out_channel = static_cast<int>(index);
    const int group = out_channel / group_out;
    const float bias = p.bias.empty() ? 0.0f : p.bias[out_channel];
    for (int oz = 0; oz < s.output_d; ++oz) {
      // Plane oz of this output channel, column-major output_h x output_w.
      float* target = output + (static_cast<size_t>(out_channel) * s.output_d + oz) * output_area;
      for (int oy = 0; oy < s.output_h; ++oy) {
        for (int ox = 0; ox < s.output_w; ++ox) {
          float sum = 0.0f;
          for (int c = 0; c < group_in; ++c) {
            for (int kz = 0; kz < d.kernel; ++kz) {
              const int iz = oz * d.stride - d.pad_before + kz * d.dilation;
              if (iz < 0 || iz >= s.input_d) continue;
              const float* source =
                  input + (static_cast<size_t>(group * group_in + c) * s.input_d + iz) * input_area;
              for (int ky = 0; ky < w.kernel_h; ++ky) {
                for (int kx = 0; kx < w.kernel_w; ++kx) {
                  const int iy = oy * w.stride_h - w.pad_top + ky * w.dilation_h;
                  const int ix = ox * w.stride_w - w.pad_left + kx * w.dilation_w;
                  if (iy < 0 || iy >= s.input_h || ix < 0 || ix >= s.input_w) continue;
                  const size_t tap =
                      ((((static_cast<size_t>(out_channel) * group_in + c) * d.kernel + kz) *
                            w.kernel_h +
                        ky) *
                           w.kernel_w +
                       kx);
                  sum += p.weights[tap] * source[static_cast<size_t>(ix) * s.input_h + iy];
                }
              }
            }
          }
          target[static_cast<size_t>(ox) * s.output_h + oy] = sum + bias;
        }
      }
    }
  });
}

VolumeConvolution::VolumeConvolution(const VolumeConvolutionSpec& spec)
    : spec_(spec), kernel_size_(VolumeKernelSize(spec)) {
  // PyTorch's weights, read column-major, are K x C_out: each group's block is its right-hand side.
  const int group_out = spec.plane.out_channels / spec.plane.groups;
  for (int group = 0; group < spec.plane.groups; ++group) {
    weights_.emplace_back(
        spec.plane.weights.data() + static_cast<size_t>(group) * group_out * kernel_size_,
        kernel_size_, group_out, kernel_size_);
  }
  std::vector<float>().swap(spec_.plane.weights);
}

void VolumeConvolutionPlan::ReserveScratch(Workspace* workspace) const {
  workspace->Reserve(ScratchSlot::kFirst, columns_floats);
  workspace->Reserve(ScratchSlot::kGemmPacking, packing_floats);
}

VolumeConvolutionPlan PlanVolumeConvolution(const VolumeConvolutionSpec& spec,
                                            const VolumeShape& shape) {
  const int kernel_size = VolumeKernelSize(spec);
  VolumeConvolutionPlan plan;
  plan.shape = shape;
  // An output column is one (z, x) position with its output_h rows.
  const int columns = std::max(shape.output_d * shape.output_w, 1);
  const int64_t column_floats = int64_t{std::max(shape.output_h, 1)} * kernel_size;
  plan.block = static_cast<int>(std::clamp<int64_t>(kBlockFloats / column_floats, 1, columns));
  const int pixels = plan.block * shape.output_h;
  plan.columns_floats = CheckedMultiply(static_cast<size_t>(pixels),
                                        static_cast<size_t>(kernel_size), "vol2col block size");
  plan.packing_floats = PackedGemmScratchSize(pixels, kernel_size);
  return plan;
}

void VolumeConvolution::Run(const VolumeConvolutionPlan& plan, const float* input, float* output,
                            const ComputeContext& context) const {
  const VolumeShape& s = plan.shape;
  const ConvolutionSpec& p = spec_.plane;
  const int group_out = p.out_channels / p.groups;
  const int columns = s.output_d * s.output_w;
  const size_t volume = static_cast<size_t>(s.output_d) * s.output_h * s.output_w;
  float* scratch = context.Scratch(ScratchSlot::kFirst, plan.columns_floats);
  for (int group = 0; group < p.groups; ++group) {
    for (int first_column = 0; first_column < columns; first_column += plan.block) {
      const int block_columns = std::min(plan.block, columns - first_column);
      const int pixels = block_columns * s.output_h;
      Vol2Col(s, input, group, first_column, block_columns, scratch, context);
      // (pixels x K) * (K x group_out) -> rows [first pixel, +pixels) of the group's outputs
      float* result = output + static_cast<size_t>(group) * group_out * volume +
                      static_cast<size_t>(first_column) * s.output_h;
      PackedGemm(pixels, scratch, pixels, weights_[group], result, static_cast<int>(volume),
                 context);
      if (p.bias.empty()) continue;
      ParallelFor(context.pool, group_out, [&](std::ptrdiff_t channel) {
        const float bias = p.bias[group * group_out + channel];
        float* values = result + static_cast<size_t>(channel) * volume;
        for (int i = 0; i < pixels; ++i) values[i] += bias;
      });
    }
  }
}

void VolumeConvolution::Vol2Col(const VolumeShape& s, const float* input, int group,
                                int first_column, int block_columns, float* columns,
                                const ComputeContext& context) const {
  const Window2d& w = spec_.plane.window;
  const WindowAxis& d = spec_.depth;
  const int taps = d.kernel * w.kernel_h * w.kernel_w;
  const int pixels = block_columns * s.output_h;
  const size_t input_area = static_cast<size_t>(s.input_h) * s.input_w;
  const int group_in = spec_.plane.in_channels / spec_.plane.groups;
  // Column k of the matrix is input channel k / taps shifted by the tap (kz, ky, kx).
  ParallelFor(context.pool, kernel_size_, [&](std::ptrdiff_t index) {
    const int k = static_cast<int>(index);
    const int channel = group * group_in + k / taps;
    const int kz = (k % taps) / (w.kernel_h * w.kernel_w);
    const int ky = (k % (w.kernel_h * w.kernel_w)) / w.kernel_w;
    const int kx = k % w.kernel_w;
    const int depth_offset = kz * d.dilation - d.pad_before;
    const int row_offset = ky * w.dilation_h - w.pad_top;
    const int col_offset = kx * w.dilation_w - w.pad_left;
    int first_row = 0;
    int end_row = 0;
    InsideRange(row_offset, w.stride_h, s.input_h, s.output_h, &first_row, &end_row);
    float* column = columns + static_cast<size_t>(k) * pixels;
    for (int c = 0; c < block_columns; ++c) {
      float* target = column + static_cast<size_t>(c) * s.output_h;
      const int oz = (first_column + c) / s.output_w;
      const int ox = (first_column + c) % s.output_w;
      const int iz = oz * d.stride + depth_offset;
      const int ix = ox * w.stride_w + col_offset;
      if (iz < 0 || iz >= s.input_d || ix < 0 || ix >= s.input_w) {
        std::fill(target, target + s.output_h, 0.0f);
        continue;
      }
      // One input column: contiguous rows of plane iz of the channel.
      const float* input_column = input +
                                  (static_cast<size_t>(channel) * s.input_d + iz) * input_area +
                                  static_cast<size_t>(ix) * s.input_h;
      std::fill(target, target + first_row, 0.0f);
      for (int oy = first_row; oy < end_row; ++oy) {
        target[oy] = input_column[oy * w.stride_h + row_offset];
      }
      std::fill(target + end_row, target + s.output_h, 0.0f);
    }
  });
}

}  // namespace lumen
