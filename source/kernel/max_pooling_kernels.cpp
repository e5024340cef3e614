#include "kernel/max_pooling_kernels.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "base/checked_math.hpp"
#include "kernel/padded_plane.hpp"
#include "math/simd.hpp"

namespace lumen {
namespace {

constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();

// max(a, b) where a NaN in b wins (a NaN in a is kept by the comparison failing).
inline float MaxKeepingNan(float a, float b) { return (b > a || b != b) ? b : a; }

// Taps k in [*first, *end) of a window whose tap k reads start + k * dilation that land in
// [0, size). In 64 bits: a hostile window's start and extent do not fit in an int.
void TapRange(int64_t start, int dilation, int kernel, int size, int* first, int* end) {
  const int64_t last_inside = int64_t{size} - 1 - start;  // largest k * dilation still inside
  const int64_t taps = last_inside < 0 ? 0 : std::min<int64_t>(kernel, last_inside / dilation + 1);
  const int64_t skipped = start < 0 ? (-start + dilation - 1) / dilation : 0;
  *end = static_cast<int>(taps);
  *first = static_cast<int>(std::min(skipped, taps));
}

// Output positions o in [*first, *end) whose tap o * stride + offset lies in [0, size).
void ValidRange(int64_t offset, int stride, int size, int outputs, int* first, int* end) {
  *first = static_cast<int>(std::clamp<int64_t>((-offset + stride - 1) / stride, 0, outputs));
  *end = static_cast<int>(
      std::clamp<int64_t>((int64_t{size} - offset + stride - 1) / stride, *first, outputs));
}

// maxima[oy] = max(maxima[oy], column[oy * stride + offset]) for oy in [first, end). A template
// so that the caller can spell the usual strides as constants: the compiler then reads stride 2
// with two loads and a shuffle per vector, where a stride known only at run time leaves it a
// gather or one float at a time.
template <int Stride>
void MaxDownColumn(const float* column, int64_t offset, int stride, int first, int end,
                   float* maxima) {
  const int64_t step = Stride > 0 ? Stride : stride;
  for (int oy = first; oy < end; ++oy) {
    maxima[oy] = MaxKeepingNan(maxima[oy], column[oy * step + offset]);
  }
}

// GCC's portable SIMD type, one AVX2 register: a tile of MaxPoolTiled is one vector of rows.
constexpr int kLanes = 8;
using Vector = FloatVector<kLanes>;

// The lanes' comparison results: all bits set where true.
using LaneMask = decltype(Vector{} != Vector{});

}  // namespace

size_t MaxPoolSeparableScratchSize(const PoolingPlane& plane) {
  return CheckedMultiply(static_cast<size_t>(plane.input_w), static_cast<size_t>(plane.output_h),
                         "max pooling scratch");
}

void MaxPoolReference(const Window2d& w, const PoolingPlane& plane, const float* input,
                      float* output) {
  // LESSON 07 BEGIN: the maximum over each window, NaN winning
  for (int ox = 0; ox < plane.output_w; ++ox) {
    const int64_t x_start = int64_t{ox} * w.stride_w - w.pad_left;
    int kx_first = 0, kx_end = 0;
    TapRange(x_start, w.dilation_w, w.kernel_w, plane.input_w, &kx_first, &kx_end);
    for (int oy = 0; oy < plane.output_h; ++oy) {
      const int64_t y_start = int64_t{oy} * w.stride_h - w.pad_top;
      int ky_first = 0, ky_end = 0;
      TapRange(y_start, w.dilation_h, w.kernel_h, plane.input_h, &ky_first, &ky_end);
      float maximum = kMinusInfinity;
      for (int kx = kx_first; kx < kx_end; ++kx) {
        const int64_t ix = x_start + int64_t{kx} * w.dilation_w;
        const float* column = input + ix * plane.input_h;
        for (int ky = ky_first; ky < ky_end; ++ky) {
          maximum = MaxKeepingNan(maximum, column[y_start + int64_t{ky} * w.dilation_h]);
        }
      }
      output[static_cast<size_t>(ox) * plane.output_h + oy] = maximum;
    }
  }
  // LESSON 07 END
}

void MaxPoolSeparable(const Window2d& w, const PoolingPlane& plane, const float* input,
                      float* output, float* scratch) {
  // LESSON 07 BEGIN: a max down the columns, then across them
  const int output_h = plane.output_h;
  // Only rows ky whose offset ky - pad_top some output row can reach inside the input.
  const int64_t reach = int64_t{output_h - 1} * w.stride_h;
  const int ky_first = static_cast<int>(std::max<int64_t>(0, w.pad_top - reach));
  const int ky_end =
      static_cast<int>(std::min<int64_t>(w.kernel_h, int64_t{w.pad_top} + plane.input_h));
  // Pass 1: scratch column ix, row oy = max over the window's rows of input column ix.
  for (int ix = 0; ix < plane.input_w; ++ix) {
    const float* column = input + static_cast<size_t>(ix) * plane.input_h;
    float* maxima = scratch + static_cast<size_t>(ix) * output_h;
    std::fill(maxima, maxima + output_h, kMinusInfinity);
    for (int ky = ky_first; ky < ky_end; ++ky) {
      const int64_t offset = int64_t{ky} - w.pad_top;
      int first = 0, end = 0;
      ValidRange(offset, w.stride_h, plane.input_h, output_h, &first, &end);
      if (w.stride_h == 1) {
        MaxDownColumn<1>(column, offset, 1, first, end, maxima);
      } else if (w.stride_h == 2) {
        MaxDownColumn<2>(column, offset, 2, first, end, maxima);
      } else {
        MaxDownColumn<0>(column, offset, w.stride_h, first, end, maxima);
      }
    }
  }
  // Pass 2: output column ox = max over the window's columns of the scratch columns.
  for (int ox = 0; ox < plane.output_w; ++ox) {
    float* target = output + static_cast<size_t>(ox) * output_h;
    std::fill(target, target + output_h, kMinusInfinity);
    const int64_t x_start = int64_t{ox} * w.stride_w - w.pad_left;
    int kx_first = 0, kx_end = 0;
    TapRange(x_start, 1, w.kernel_w, plane.input_w, &kx_first, &kx_end);
    for (int kx = kx_first; kx < kx_end; ++kx) {
      const float* maxima = scratch + static_cast<size_t>(x_start + kx) * output_h;
      for (int oy = 0; oy < output_h; ++oy) target[oy] = MaxKeepingNan(target[oy], maxima[oy]);
    }
  }
  // LESSON 07 END
}

bool MaxPoolTiledApplies(const Window2d& window, const PoolingPlane& plane) {
  return window.dilation_h == 1 && window.dilation_w == 1 &&
         int64_t{window.kernel_h} * window.kernel_w <= kMaxPoolTiledMaxTaps &&
         plane.output_h >= kMaxPoolTiledMinRows && plane.output_w >= 1;
}

namespace {

// Floats from one column of MaxPoolTiled's vertical maxima to the next: whole vectors, so that a
// last partial tile of rows is stored whole.
size_t VerticalColumnFloats(const PoolingPlane& plane) {
  return (static_cast<size_t>(plane.output_h) + kLanes - 1) / kLanes * kLanes;
}

// The largest of `count` vectors at `source + offsets[i]`, with NaN where any of them holds NaN.
// `value > maximum ? value : maximum` is one vmaxps, which keeps `maximum` when `value` is NaN; the
// NaNs are noted on the side and win at the end, as in PyTorch. (Selecting NaN in the chain itself
// made each tap wait for a compare, an or and a blend.)
inline Vector MaxOfVectors(const float* source, const size_t* offsets, int count) {
  Vector maximum = Vector{} + kMinusInfinity;
  LaneMask unordered{};
  for (int i = 0; i < count; ++i) {
    const Vector value = LoadVector<Vector>(source + offsets[i]);
    maximum = value > maximum ? value : maximum;
    unordered |= value != value;
  }
  return unordered != 0 ? Vector{} + std::numeric_limits<float>::quiet_NaN() : maximum;
}

}  // namespace

size_t MaxPoolTiledScratchSize(const Window2d& window, const PoolingPlane& plane) {
  const PaddedPlane padded = PaddedPlaneFor(window, plane);
  const size_t column = padded.column_floats() + kLanes;
  const size_t vertical = CheckedMultiply(static_cast<size_t>(padded.cols),
                                          VerticalColumnFloats(plane), "max pooling scratch");
  return CheckedAdd(column, vertical, "max pooling scratch");
}

void MaxPoolTiled(const Window2d& w, const PoolingPlane& plane, const float* input, float* output,
                  float* scratch) {
  // One padded column at a time: `column` holds it split by phase, -infinity where no input
  // lands (padding never wins) and in the tail a last tile reads. Those places are the same in
  // every column, so they are filled once.
  PaddedPlane one_column = PaddedPlaneFor(w, plane);
  const int padded_columns = one_column.cols;
  one_column.cols = 1;
  float* column = scratch;
  float* vertical = scratch + one_column.column_floats() + kLanes;
  const size_t vertical_floats = VerticalColumnFloats(plane);
  FillAroundInput(plane.input_h, 1, w.pad_top, 0, one_column, kLanes, kMinusInfinity, column);
  // Pass 1, down the columns: vertical[px][oy] = max over ky of padded column px's row
  // oy * stride_h + ky, every tap of a tile of rows one contiguous vector in its phase.
  size_t row_taps[kMaxPoolTiledMaxTaps];
  for (int ky = 0; ky < w.kernel_h; ++ky) row_taps[ky] = one_column.TapOffset(w, ky, 0);
  const int first_input_column = w.pad_left;
  const int end_input_column = std::min(padded_columns, w.pad_left + plane.input_w);
  for (int px = 0; px < padded_columns; ++px) {
    float* maxima = vertical + static_cast<size_t>(px) * vertical_floats;
    if (px < first_input_column || px >= end_input_column) {  // a column of padding
      std::fill(maxima, maxima + vertical_floats, kMinusInfinity);
      continue;
    }
    const float* input_column =
        input + static_cast<size_t>(px - first_input_column) * plane.input_h;
    CopyIntoPlane(input_column, plane.input_h, 1, w.pad_top, 0, one_column, column);
    for (int first_row = 0; first_row < plane.output_h; first_row += kLanes) {
      StoreVector(maxima + first_row, MaxOfVectors(column + first_row, row_taps, w.kernel_h));
    }
  }
  // Pass 2, across: output column ox = max over kx of the vertical maxima of padded column
  // ox * stride_w + kx.
  size_t column_taps[kMaxPoolTiledMaxTaps];
  for (int kx = 0; kx < w.kernel_w; ++kx) column_taps[kx] = kx * vertical_floats;
  for (int ox = 0; ox < plane.output_w; ++ox) {
    const float* first_column = vertical + static_cast<size_t>(ox) * w.stride_w * vertical_floats;
    float* target = output + static_cast<size_t>(ox) * plane.output_h;
    for (int first_row = 0; first_row < plane.output_h; first_row += kLanes) {
      const Vector maximum = MaxOfVectors(first_column + first_row, column_taps, w.kernel_w);
      const int rows = std::min(kLanes, plane.output_h - first_row);
      if (rows == kLanes) {
        StoreVector(target + first_row, maximum);
      } else {
        float tile[kLanes];
        StoreVector(tile, maximum);
        std::copy(tile, tile + rows, target + first_row);
      }
    }
  }
}

}  // namespace lumen
