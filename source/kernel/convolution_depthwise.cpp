// Depthwise convolution (groups == in_channels): each output channel reads one input channel, so
// there is nothing for a GEMM to share. Direct loops instead, arranged for the vector unit: the
// channel's input is first copied into a zero-padded plane (so no tap needs a bounds check), then
// each tile of output rows x output columns is summed over every tap in registers and stored once.
// The padded plane keeps each column's rows split by phase (row % stride): with stride 2 the even
// rows, then the odd ones. Output rows oy, oy+1, ... read padded rows oy*stride + offset, which
// then lie next to each other in one phase, so every tap is one contiguous multiply-add run
// whatever the stride.
//
// Why tiles of several columns: one tap of one column is a chain of multiply-adds into the same
// sums, and each must wait for the one before (4-5 cycles). A tile of kTileColumns columns gives
// the core that many independent chains per weight, enough to keep both FMA units busy.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "convolution_factories.hpp"
#include "lumen/base/error.hpp"
#include "lumen/base/thread_pool.hpp"
#include "lumen/kernel/convolution_algorithm.hpp"

namespace lumen {
namespace {

// GCC's portable SIMD type, one AVX2 register: arithmetic on it compiles to vector instructions.
constexpr int kLanes = 8;
using Vector = float __attribute__((vector_size(kLanes * sizeof(float))));

// A tile is at most kTileVectors vectors of rows (16 rows) by kTileColumns output columns: 8
// sums, one broadcast weight, and the loads folded into the multiply-adds fit AVX2's 16
// registers.
constexpr int kTileVectors = 2;
constexpr int kTileRows = kTileVectors * kLanes;
constexpr int kTileColumns = 6;

Vector LoadVector(const float* source) {
  Vector value;
  std::memcpy(&value, source, sizeof(value));
  return value;
}

// The zero-padded, phase-split copy of one input plane: exactly the rows and columns the windows
// read (never more than the padded input, whose sizes MakeConvolutionShape has checked).
struct PaddedPlane {
  int rows = 0;        // padded rows the windows read
  int cols = 0;        // padded columns the windows read
  int stride = 1;      // the row stride: the number of phases
  int phase_rows = 0;  // rows per phase: ceil(rows / stride)
  // Floats from one column to the next.
  size_t column_floats() const { return static_cast<size_t>(phase_rows) * stride; }
  // Floats to reserve: the plane, plus what a last partial tile reads past its end.
  size_t floats() const { return column_floats() * cols + kTileRows; }
};

PaddedPlane PaddedPlaneFor(const Window2d& window, const ConvolutionShape& shape) {
  const auto extent = [](int outputs, int stride, int kernel, int dilation) {
    return static_cast<int>(int64_t{outputs - 1} * stride + int64_t{kernel - 1} * dilation + 1);
  };
  PaddedPlane plane;
  plane.rows = extent(shape.output_h, window.stride_h, window.kernel_h, window.dilation_h);
  plane.cols = extent(shape.output_w, window.stride_w, window.kernel_w, window.dilation_w);
  plane.stride = window.stride_h;
  plane.phase_rows = (plane.rows + plane.stride - 1) / plane.stride;
  return plane;
}

// Copies the column-major input_h x input_w `source` into `plane` with its top-left input pixel
// at padded (pad_top, pad_left). Writes only where input lands: the caller zeroes the plane once
// for all the channels it pads into it, since their zeros lie in the same places.
void CopyIntoPlane(const float* source, int input_h, int input_w, int pad_top, int pad_left,
                   const PaddedPlane& plane, float* target) {
  // The input rows and columns that land inside the plane (the last windows may stop before the
  // input's end).
  const int end_row = std::min(input_h, plane.rows - pad_top);
  const int end_col = std::min(input_w, plane.cols - pad_left);
  const int stride = plane.stride;
  // One phase at a time: a phase's range of rows is the same in every column (two divisions per
  // phase, not per column, which cost more than the copy on small maps).
  for (int phase = 0; phase < stride; ++phase) {
    // Padded rows phase + j * stride, that is input rows phase + j * stride - pad_top, for the j
    // that put them inside the input.
    const int first_j =
        std::min(plane.phase_rows, std::max(0, (pad_top - phase + stride - 1) / stride));
    const int end_j = std::max(
        first_j, std::min(plane.phase_rows, (end_row + pad_top - phase + stride - 1) / stride));
    for (int col = 0; col < end_col; ++col) {
      float* to = target + static_cast<size_t>(col + pad_left) * plane.column_floats() +
                  static_cast<size_t>(phase) * plane.phase_rows;
      const float* input_row = source + static_cast<size_t>(col) * input_h + phase - pad_top;
      // The compiler vectorises the copy, and the stride-2 gather when the 2 is a constant.
      if (stride == 1) {
        std::copy(input_row + first_j, input_row + end_j, to + first_j);
      } else if (stride == 2) {
        for (int j = first_j; j < end_j; ++j) to[j] = input_row[2 * static_cast<ptrdiff_t>(j)];
      } else {
        for (int j = first_j; j < end_j; ++j) to[j] = input_row[static_cast<ptrdiff_t>(j) * stride];
      }
    }
  }
}

// Output rows first_row..first_row + Vectors * kLanes of output columns ox..ox + Columns of one
// channel: out[oy][ox] = bias + sum over taps of weight * padded[oy * stride + ky * dilation]
// [ox * stride + kx * dilation], summed in registers. Only the first `row_count` rows are stored
// (a last, partial tile reads past the map into the plane's tail and throws those sums away).
template <int Vectors, int Columns, int KernelH, int KernelW>
inline __attribute__((always_inline)) void DepthwiseTile(
    const float* padded, const PaddedPlane& plane, const float* weights, float bias,
    const Window2d& w, int ox, int first_row, int row_count, float* output, int output_h) {
  Vector sum[Columns][Vectors];
#pragma GCC unroll 8
  for (int j = 0; j < Columns; ++j) {
#pragma GCC unroll 2
    for (int v = 0; v < Vectors; ++v) sum[j][v] = Vector{} + bias;
  }
  const size_t column_step = static_cast<size_t>(w.stride_w) * plane.column_floats();
  const size_t tap_step = static_cast<size_t>(w.dilation_w) * plane.column_floats();
  const float* tile_origin = padded + ox * column_step + first_row;
  // Tap row ky's padded row ky * dilation lies in phase (ky * dilation) % stride: kept as a
  // running (phase, row in phase) pair, once per kernel row, out of the multiply-add loop.
  const int phase_step = w.dilation_h % plane.stride;
  const int row_step = w.dilation_h / plane.stride;
  const int kernel_h = KernelH > 0 ? KernelH : w.kernel_h;
  const int kernel_w = KernelW > 0 ? KernelW : w.kernel_w;
  int phase = 0;
  int row = 0;
#pragma GCC unroll 7
  for (int ky = 0; ky < kernel_h; ++ky) {
    const float* rows = tile_origin + static_cast<size_t>(phase) * plane.phase_rows + row;
    const float* row_weights = weights + ky * kernel_w;
#pragma GCC unroll 7
    for (int kx = 0; kx < kernel_w; ++kx, rows += tap_step) {
      const float weight = row_weights[kx];
#pragma GCC unroll 8
      for (int j = 0; j < Columns; ++j) {
#pragma GCC unroll 2
        for (int v = 0; v < Vectors; ++v) {
          sum[j][v] += weight * LoadVector(rows + j * column_step + v * kLanes);
        }
      }
    }
    phase += phase_step;
    row += row_step;
    if (phase >= plane.stride) {
      phase -= plane.stride;
      ++row;
    }
  }
#pragma GCC unroll 8
  for (int j = 0; j < Columns; ++j) {
    float* target = output + static_cast<size_t>(ox + j) * output_h + first_row;
    if (row_count == Vectors * kLanes) {
      std::memcpy(target, sum[j], sizeof(sum[j]));
    } else {
      // A loop of known length with a condition, not a copy of row_count floats: the compiler
      // makes it a masked store, where a copy became a call to memmove per column.
      float tile[Vectors * kLanes];
      std::memcpy(tile, sum[j], sizeof(tile));
#pragma GCC unroll 16
      for (int i = 0; i < Vectors * kLanes; ++i) {
        if (i < row_count) target[i] = tile[i];
      }
    }
  }
}

// Rows first_row.. (row_count of them) of every output column of one channel: kTileColumns
// columns at a time.
template <int Vectors, int KernelH, int KernelW>
void DepthwiseRowBand(const float* padded, const PaddedPlane& plane, const float* weights,
                      float bias, const Window2d& w, int output_w, int first_row, int row_count,
                      float* output, int output_h) {
  int ox = 0;
  for (; ox + kTileColumns <= output_w; ox += kTileColumns) {
    DepthwiseTile<Vectors, kTileColumns, KernelH, KernelW>(padded, plane, weights, bias, w, ox,
                                                           first_row, row_count, output, output_h);
  }
  // The last 1-5 columns in one narrower tile.
  switch (output_w - ox) {
    case 5:
      DepthwiseTile<Vectors, 5, KernelH, KernelW>(padded, plane, weights, bias, w, ox, first_row,
                                                  row_count, output, output_h);
      break;
    case 4:
      DepthwiseTile<Vectors, 4, KernelH, KernelW>(padded, plane, weights, bias, w, ox, first_row,
                                                  row_count, output, output_h);
      break;
    case 3:
      DepthwiseTile<Vectors, 3, KernelH, KernelW>(padded, plane, weights, bias, w, ox, first_row,
                                                  row_count, output, output_h);
      break;
    case 2:
      DepthwiseTile<Vectors, 2, KernelH, KernelW>(padded, plane, weights, bias, w, ox, first_row,
                                                  row_count, output, output_h);
      break;
    case 1:
      DepthwiseTile<Vectors, 1, KernelH, KernelW>(padded, plane, weights, bias, w, ox, first_row,
                                                  row_count, output, output_h);
      break;
  }
}

// One output channel: bands of kTileRows rows, a short last band in half as many (a 5x5 map
// would waste 11 of 16 rows).
template <int KernelH, int KernelW>
void DepthwiseChannel(const float* padded, const PaddedPlane& plane, const float* weights,
                      float bias, const Window2d& w, int output_h, int output_w, float* output) {
  for (int first_row = 0; first_row < output_h; first_row += kTileRows) {
    const int row_count = std::min(kTileRows, output_h - first_row);
    if (row_count <= kLanes) {
      DepthwiseRowBand<1, KernelH, KernelW>(padded, plane, weights, bias, w, output_w, first_row,
                                            row_count, output, output_h);
    } else {
      DepthwiseRowBand<kTileVectors, KernelH, KernelW>(padded, plane, weights, bias, w, output_w,
                                                       first_row, row_count, output, output_h);
    }
  }
}

// DepthwiseChannel for a kernel size: the common square kernels get their taps unrolled at
// compile time (a 3x3 tile's two 3-step loops cost as much in branches as its multiply-adds);
// any other size loops.
using ChannelFunction = void (*)(const float*, const PaddedPlane&, const float*, float,
                                 const Window2d&, int, int, float*);
ChannelFunction ChannelFunctionFor(const Window2d& w) {
  if (w.kernel_h == 3 && w.kernel_w == 3) return DepthwiseChannel<3, 3>;
  if (w.kernel_h == 5 && w.kernel_w == 5) return DepthwiseChannel<5, 5>;
  if (w.kernel_h == 7 && w.kernel_w == 7) return DepthwiseChannel<7, 7>;
  return DepthwiseChannel<0, 0>;
}

class DepthwiseConvolution : public ConvolutionAlgorithm {
 public:
  // Keeps the weights as they are: one kH x kW kernel per output channel, row-major.
  explicit DepthwiseConvolution(const ConvolutionSpec& spec)
      : ConvolutionAlgorithm(spec), weights_(spec.weights) {}
  ConvolutionAlgorithmKind kind() const override { return ConvolutionAlgorithmKind::kDepthwise; }

  // One task per thread, each a run of output channels; a task pads one input plane at a time in
  // its scratch.
  ConvolutionPlan Plan(const ConvolutionShape& shape, const Activation& activation,
                       int /*threads*/) const override {
    ConvolutionPlan plan = BasicPlan(shape, activation);
    plan.scratch(ScratchSlot::kFirst) = PaddedPlaneFor(window_, shape).floats();
    return plan;
  }

  void Run(const ConvolutionPlan& plan, const float* input, float* output,
           const ComputeContext& context) const override {
    const ConvolutionShape& s = plan.shape;
    const Window2d& w = window_;
    const int multiplier = out_channels_ / in_channels_;
    const int taps = w.kernel_h * w.kernel_w;
    const size_t input_area = static_cast<size_t>(s.input_h) * s.input_w;
    const size_t output_area = static_cast<size_t>(s.output_h) * s.output_w;
    const PaddedPlane plane = PaddedPlaneFor(w, s);
    const ChannelFunction compute_channel = ChannelFunctionFor(w);
    const int tasks =
        context.pool == nullptr ? 1 : std::min(context.pool->threads(), out_channels_);
    ParallelFor(context.pool, tasks, [&](std::ptrdiff_t task) {
      float* padded = context.Scratch(ScratchSlot::kFirst, plane.floats());
      std::fill(padded, padded + plane.floats(), 0.0f);  // the padding, and the read-past tail
      const int first_channel = static_cast<int>(task * out_channels_ / tasks);
      const int end_channel = static_cast<int>((task + 1) * out_channels_ / tasks);
      for (int channel = first_channel; channel < end_channel; ++channel) {
        CopyIntoPlane(input + (channel / multiplier) * input_area, s.input_h, s.input_w, w.pad_top,
                      w.pad_left, plane, padded);
        const float* weights = weights_.data() + static_cast<size_t>(channel) * taps;
        float* target = output + channel * output_area;
        compute_channel(padded, plane, weights, bias(channel), w, s.output_h, s.output_w, target);
        if (plan.activation.kind != Activation::Kind::kIdentity) {
          AddBiasAndActivate(plan.activation, 0.0f, target, output_area);  // the bias is in already
        }
      }
    });
  }

 private:
  std::vector<float> weights_;  // (out, 1, kH, kW), row-major
};

}  // namespace

std::unique_ptr<ConvolutionAlgorithm> MakeDepthwiseConvolution(const ConvolutionSpec& spec) {
  if (!DepthwiseApplies(spec)) throw Error("depthwise convolution needs groups == in_channels");
  return std::make_unique<DepthwiseConvolution>(spec);
}

}  // namespace lumen
