// Depthwise convolution (groups == in_channels): each output channel reads one input channel, so
// there is nothing for a GEMM to share. Direct loops instead, arranged for the vector unit: the
// channel's input is first copied into a zero-padded plane (so no tap needs a bounds check), then
// each block of kRows output rows of a column is summed over every tap in registers and stored
// once. The padded plane keeps each column's rows split by phase (row % stride): with stride 2 the
// even rows, then the odd ones. Output rows oy, oy+1, ... read padded rows oy*stride + offset,
// which then lie next to each other in one phase, so every tap is one contiguous multiply-add run
// whatever the stride.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "convolution_factories.hpp"
#include "lumen/base/error.hpp"
#include "lumen/base/thread_pool.hpp"
#include "lumen/kernel/convolution_algorithm.hpp"

namespace lumen {
namespace {

// Output rows summed together in registers (two AVX2 registers, one AVX-512 one).
constexpr int kRows = 16;

// The zero-padded, phase-split copy of one input plane: exactly the rows and columns the windows
// read (never more than the padded input, whose sizes MakeConvolutionShape has checked).
struct PaddedPlane {
  int rows = 0;        // padded rows the windows read
  int cols = 0;        // padded columns the windows read
  int stride = 1;      // the row stride: the number of phases
  int phase_rows = 0;  // rows per phase: ceil(rows / stride)
  // Floats from one column to the next.
  size_t column_floats() const { return static_cast<size_t>(phase_rows) * stride; }
  // Floats to reserve: the plane, plus what a last partial block reads past its end.
  size_t floats() const { return column_floats() * cols + kRows; }
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
// at padded (pad_top, pad_left); zero everywhere else, including the read-past tail.
void PadPlane(const float* source, int input_h, int input_w, int pad_top, int pad_left,
              const PaddedPlane& plane, float* target) {
  std::fill(target, target + plane.floats(), 0.0f);
  // The input rows and columns that land inside the plane (the last windows may stop before the
  // input's end).
  const int end_row = std::min(input_h, plane.rows - pad_top);
  const int end_col = std::min(input_w, plane.cols - pad_left);
  const int stride = plane.stride;
  for (int col = 0; col < end_col; ++col) {
    const float* from = source + static_cast<size_t>(col) * input_h;
    float* column = target + static_cast<size_t>(col + pad_left) * plane.column_floats();
    for (int phase = 0; phase < stride; ++phase) {
      // Padded rows phase + j * stride, that is input rows phase + j * stride - pad_top, for the
      // j that put them inside the input.
      const int first_j = std::max(0, (pad_top - phase + stride - 1) / stride);
      const int end_j = std::max(0, (end_row + pad_top - phase + stride - 1) / stride);
      float* to = column + static_cast<size_t>(phase) * plane.phase_rows;
      const float* input_row = from + phase - pad_top;
      if (stride == 1) {  // a plain copy, which the compiler vectorises
        std::copy(input_row + first_j, input_row + end_j, to + first_j);
      } else {
        for (int j = first_j; j < end_j; ++j) to[j] = input_row[static_cast<ptrdiff_t>(j) * stride];
      }
    }
  }
}

// Output rows first..first+Rows of one output column of one channel: out[oy] = sum over taps of
// weight * padded[oy * stride + ky * dilation][ox * stride + kx * dilation], summed in registers.
// Rows is kRows, or half of it for a short last block (a 6x6 map would waste 10 of 16 rows).
template <int Rows>
void DepthwiseBlock(const float* padded, const PaddedPlane& plane, const float* weights,
                    const Window2d& w, int ox, int first, int count, float* output_column) {
  float sum[Rows] = {};
  // Tap ky's padded row ky * dilation lies in phase (ky * dilation) % stride: kept as a running
  // (phase, row in phase) pair, because a division per tap cost more than its multiply-adds.
  const int phase_step = w.dilation_h % plane.stride;
  const int row_step = w.dilation_h / plane.stride;
  for (int kx = 0; kx < w.kernel_w; ++kx) {
    const float* column =
        padded + static_cast<size_t>(ox * w.stride_w + kx * w.dilation_w) * plane.column_floats();
    int phase = 0;
    int row = first;
    for (int ky = 0; ky < w.kernel_h; ++ky) {
      const float weight = weights[ky * w.kernel_w + kx];
      const float* rows = column + static_cast<size_t>(phase) * plane.phase_rows + row;
      for (int i = 0; i < Rows; ++i) sum[i] += weight * rows[i];
      phase += phase_step;
      row += row_step;
      if (phase >= plane.stride) {
        phase -= plane.stride;
        ++row;
      }
    }
  }
  std::copy(sum, sum + count, output_column + first);
}

// One output column of one channel, kRows rows at a time.
void DepthwiseColumn(const float* padded, const PaddedPlane& plane, const float* weights,
                     const Window2d& w, int ox, int output_h, float* output_column) {
  for (int first = 0; first < output_h; first += kRows) {
    const int count = std::min(kRows, output_h - first);
    if (count <= kRows / 2) {
      DepthwiseBlock<kRows / 2>(padded, plane, weights, w, ox, first, count, output_column);
    } else {
      DepthwiseBlock<kRows>(padded, plane, weights, w, ox, first, count, output_column);
    }
  }
}

class DepthwiseConvolution : public ConvolutionAlgorithm {
 public:
  // Keeps the weights as they are: one kH x kW kernel per output channel, row-major.
  explicit DepthwiseConvolution(const ConvolutionSpec& spec)
      : ConvolutionAlgorithm(spec), weights_(spec.weights) {}
  ConvolutionAlgorithmKind kind() const override { return ConvolutionAlgorithmKind::kDepthwise; }

  // One task per output channel; each thread pads one input plane at a time in its scratch.
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
    ParallelFor(context.pool, out_channels_, [&](std::ptrdiff_t index) {
      const int channel = static_cast<int>(index);
      float* padded = context.Scratch(ScratchSlot::kFirst, plane.floats());
      PadPlane(input + (channel / multiplier) * input_area, s.input_h, s.input_w, w.pad_top,
               w.pad_left, plane, padded);
      const float* weights = weights_.data() + static_cast<size_t>(channel) * taps;
      float* target = output + channel * output_area;
      for (int ox = 0; ox < s.output_w; ++ox) {
        DepthwiseColumn(padded, plane, weights, w, ox, s.output_h,
                        target + static_cast<size_t>(ox) * s.output_h);
      }
      FinishChannel(plan.activation, channel, target, output_area);
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
