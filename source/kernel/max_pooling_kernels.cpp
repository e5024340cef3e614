#include "kernel/max_pooling_kernels.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "base/checked_math.hpp"
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

// Floats of MaxPoolTiled's padded column: the rows the tiles of eight output rows read (the last
// tile ends at row max(output_h, 8) - 1; at stride 2 each tap loads a pair of vectors), and at
// least the padded input.
size_t TiledColumnFloats(const Window2d& window, const PoolingPlane& plane) {
  const int64_t tiles_read =
      int64_t{std::max(plane.output_h, kLanes)} * window.stride_h + window.kernel_h + 2 * kLanes;
  const int64_t input_rows = int64_t{window.pad_top} + plane.input_h;
  return static_cast<size_t>(std::max(tiles_read, input_rows));
}

// max(a, b) lane by lane: one vmaxps, which gives `b` where `a` is NaN (see MaxPoolTiled).
inline Vector Max(const Vector& a, const Vector& b) { return a > b ? a : b; }

// The even lanes of the 16 floats at `source`: rows 2i of a stride-2 window in one vector.
inline Vector EvenLanes(const float* source) {
  return __builtin_shufflevector(LoadVector<Vector>(source), LoadVector<Vector>(source + kLanes), 0,
                                 2, 4, 6, 8, 10, 12, 14);
}

// Lane i: the largest of rows[2i], rows[2i + 1] and rows[2i + 2], the usual 3x3 stride-2 window
// down a column. With pairs[j] = max(rows[j], rows[j + 1]) that is max(pairs[2i], pairs[2i + 1]):
// four loads, where three taps of EvenLanes take six, and one cross-lane permute.
inline Vector MaxOfThreeStrideTwo(const float* rows) {
  const Vector low = Max(LoadVector<Vector>(rows), LoadVector<Vector>(rows + 1));
  const Vector high = Max(LoadVector<Vector>(rows + kLanes), LoadVector<Vector>(rows + kLanes + 1));
  // Within each 128-bit half (one vshufps each): the even pairs, then the odd ones, of each
  // half's four rows, in the order 0 2 8 10 | 4 6 12 14; the maximum; then the halves' middle
  // quarters swapped into order.
  const Vector even = __builtin_shufflevector(low, high, 0, 2, 8, 10, 4, 6, 12, 14);
  const Vector odd = __builtin_shufflevector(low, high, 1, 3, 9, 11, 5, 7, 13, 15);
  const Vector maximum = Max(even, odd);
  return __builtin_shufflevector(maximum, maximum, 0, 1, 4, 5, 2, 3, 6, 7);
}

// The largest of the vectors tap(0) .. tap(count - 1) (-infinity for none), where `Taps`, when not
// 0, is `count` known at compile time (the loop then unrolls). vmaxps keeps the running maximum
// when a value is NaN: MaxPoolTiled looks for NaN on the side.
template <int Taps, typename Tap>
inline Vector MaxOfTaps(int count, Tap tap) {
  const int taps = Taps > 0 ? Taps : count;
  if (taps == 0) return Vector{} + kMinusInfinity;
  Vector maximum = tap(0);
  for (int i = 1; i < taps; ++i) {
    maximum = Max(tap(i), maximum);
  }
  return maximum;
}

// One output column's tiles of eight rows: output[oy] = max over ky of column[oy * Stride + ky].
// `Stride` 0 stands for a stride known only at run time (each tap's lanes then gathered), `Kernel`
// 0 for a window height known only at run time.
template <int Kernel, int Stride>
void MaxDownPaddedColumn(const float* column, const Window2d& w, int output_h, float* output) {
  const int stride = Stride > 0 ? Stride : w.stride_h;
  const auto tile_maximum = [&](int first_row) {
    const float* rows = column + static_cast<size_t>(first_row) * stride;
    if constexpr (Kernel == 3 && Stride == 2) return MaxOfThreeStrideTwo(rows);
    return MaxOfTaps<Kernel>(w.kernel_h, [&](int ky) {
      if constexpr (Stride == 1) return LoadVector<Vector>(rows + ky);
      if constexpr (Stride == 2) return EvenLanes(rows + ky);
      Vector lanes;
      for (int lane = 0; lane < kLanes; ++lane) lanes[lane] = rows[lane * stride + ky];
      return lanes;
    });
  };
  if (output_h < kLanes) {  // one short tile, stored through the stack
    float tile[kLanes];
    StoreVector(tile, tile_maximum(0));
    std::copy(tile, tile + output_h, output);
    return;
  }
  // Whole tiles; the last one ends at the column's end and may overlap the one before it (the
  // rows they share get the same values twice).
  for (int first_row = 0; first_row < output_h; first_row += kLanes) {
    const int row = std::min(first_row, output_h - kLanes);
    StoreVector(output + row, tile_maximum(row));
  }
}

// MaxPoolTiled for a window of Kernel x Kernel (0: any other size, known at run time).
template <int Kernel>
void MaxPoolTiledWith(const Window2d& w, const PoolingPlane& plane, const float* input,
                      float* output, float* scratch) {
  // `column` is one padded column: -infinity above and below the input rows (padding never
  // wins), filled once; the input rows are rewritten for every output column.
  const size_t column_floats = TiledColumnFloats(w, plane);
  float* column = scratch;
  float* maxima = column + w.pad_top;  // where input row 0 lands
  std::fill(column, maxima, kMinusInfinity);
  std::fill(maxima + plane.input_h, column + column_floats, kMinusInfinity);
  const int input_h = plane.input_h;
  // The sum of every value read: NaN if one of them is NaN (or if +infinity and -infinity were
  // both read), and then the reference pools this channel. One add per value, where a compare
  // and an or would be two.
  Vector checksum{};
  float scalar_checksum = 0.0f;
  for (int ox = 0; ox < plane.output_w; ++ox) {
    // Across: maxima[iy] = max over the window's columns inside the input of row iy.
    const int64_t x_start = int64_t{ox} * w.stride_w - w.pad_left;
    // The window's columns inside the input (TapRange at dilation 1, without its divisions).
    const int kx_first = static_cast<int>(std::clamp<int64_t>(-x_start, 0, w.kernel_w));
    const int kx_end = static_cast<int>(
        std::clamp<int64_t>(int64_t{plane.input_w} - x_start, kx_first, w.kernel_w));
    const float* first_column = input + (x_start + kx_first) * input_h;
    const int columns = kx_end - kx_first;
    const auto rows_maximum = [&](int first_row) {
      Vector sum{};  // summed apart, so that the checksum's chain takes one add per vector of rows
      const auto tap = [&](int kx) {
        const Vector value =
            LoadVector<Vector>(first_column + static_cast<size_t>(kx) * input_h + first_row);
        sum += value;
        return value;
      };
      // All the window's columns (the unrolled loop), or fewer at the map's edges.
      const Vector maximum =
          columns == Kernel ? MaxOfTaps<Kernel>(columns, tap) : MaxOfTaps<0>(columns, tap);
      checksum += sum;
      return maximum;
    };
    // Vectors of eight rows, the last one ending at the column's end (overlapping the one before
    // it); a column shorter than a vector one row at a time.
    int iy = 0;
    for (; iy + kLanes <= input_h; iy += kLanes) StoreVector(maxima + iy, rows_maximum(iy));
    if (iy < input_h && input_h >= kLanes) {
      StoreVector(maxima + input_h - kLanes, rows_maximum(input_h - kLanes));
      iy = input_h;
    }
    for (; iy < input_h; ++iy) {
      float maximum = kMinusInfinity;
      for (int kx = 0; kx < columns; ++kx) {
        const float value = first_column[static_cast<size_t>(kx) * input_h + iy];
        scalar_checksum += value;
        maximum = std::max(maximum, value);
      }
      maxima[iy] = maximum;
    }
    // Down: each tile of eight output rows over the window's rows, in registers.
    float* target = output + static_cast<size_t>(ox) * plane.output_h;
    if (w.stride_h == 1) {
      MaxDownPaddedColumn<Kernel, 1>(column, w, plane.output_h, target);
    } else if (w.stride_h == 2) {
      MaxDownPaddedColumn<Kernel, 2>(column, w, plane.output_h, target);
    } else {
      MaxDownPaddedColumn<Kernel, 0>(column, w, plane.output_h, target);
    }
  }
  // NaN must win, as in PyTorch, which vmaxps does not do; NaN is rare enough that a channel
  // holding one is simply pooled again by the definition.
  bool unordered = scalar_checksum != scalar_checksum;
  for (int lane = 0; lane < kLanes; ++lane) unordered |= checksum[lane] != checksum[lane];
  if (unordered) MaxPoolReference(w, plane, input, output);
}

}  // namespace

size_t MaxPoolTiledScratchSize(const Window2d& window, const PoolingPlane& plane) {
  return TiledColumnFloats(window, plane);
}

void MaxPoolTiled(const Window2d& w, const PoolingPlane& plane, const float* input, float* output,
                  float* scratch) {
  // The usual windows, 3x3 and 2x2, with their tap loops unrolled.
  if (w.kernel_h == 3 && w.kernel_w == 3) {
    MaxPoolTiledWith<3>(w, plane, input, output, scratch);
  } else if (w.kernel_h == 2 && w.kernel_w == 2) {
    MaxPoolTiledWith<2>(w, plane, input, output, scratch);
  } else {
    MaxPoolTiledWith<0>(w, plane, input, output, scratch);
  }
}

}  // namespace lumen
