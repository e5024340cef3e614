#include "kernel/padded_plane.hpp"

#include <algorithm>
#include <cstdint>

#include "math/simd.hpp"

namespace lumen {
namespace {

// GCC's portable SIMD type, one AVX2 register: the stride-2 split shuffles eight rows at a time.
constexpr int kLanes = 8;
using Vector = FloatVector<kLanes>;

// Stride 2: input rows 0..rows of one column into the padded column `to`, split by phase in one
// pass. Padded row r + pad_top lands in phase (r + pad_top) % 2 at (r + pad_top) / 2, so the even
// input rows go together to one phase from pad_top / 2 on, the odd ones to the other from
// (pad_top + 1) / 2 on. Sixteen input rows at a time become eight of each by two shuffles.
void SplitColumnInTwo(const float* from, int rows, int pad_top, const PaddedPlane& plane,
                      float* to) {
  float* even = to + static_cast<size_t>(pad_top % 2) * plane.phase_rows + pad_top / 2;
  float* odd = to + static_cast<size_t>(1 - pad_top % 2) * plane.phase_rows + (pad_top + 1) / 2;
  int k = 0;  // even[k] = from[2k], odd[k] = from[2k + 1]
  for (; 2 * k + 2 * kLanes <= rows; k += kLanes) {
    const Vector low = LoadVector<Vector>(from + 2 * k);
    const Vector high = LoadVector<Vector>(from + 2 * k + kLanes);
    // Lanes of (low, high) by index, 0-7 low and 8-15 high (GCC 12 and clang both have this).
    const Vector evens = __builtin_shufflevector(low, high, 0, 2, 4, 6, 8, 10, 12, 14);
    const Vector odds = __builtin_shufflevector(low, high, 1, 3, 5, 7, 9, 11, 13, 15);
    StoreVector(even + k, evens);
    StoreVector(odd + k, odds);
  }
  for (; 2 * k < rows; ++k) {
    even[k] = from[2 * k];
    if (2 * k + 1 < rows) odd[k] = from[2 * k + 1];
  }
}

// Copies `count` floats from `from` to `to` in vectors, inline: std::copy became a call to memmove
// per column, a tenth of a depthwise layer's time on MobileNetV2's 56- and 112-row maps.
void CopyRun(const float* from, int count, float* to) {
  if (count < kLanes) {
    for (int i = 0; i < count; ++i) to[i] = from[i];
    return;
  }
  for (int i = 0; i + kLanes <= count; i += kLanes) {
    StoreVector(to + i, LoadVector<Vector>(from + i));
  }
  // The last kLanes floats, overlapping the ones just copied, instead of a loop over the rest.
  StoreVector(to + count - kLanes, LoadVector<Vector>(from + count - kLanes));
}

// Rows j in [*first_j, *end_j) of phase `phase` hold input: padded rows phase + j * stride, that
// is input rows phase + j * stride - pad_top, inside the input's first `end_row` rows.
void RowsWithInput(const PaddedPlane& plane, int pad_top, int end_row, int phase, int* first_j,
                   int* end_j) {
  const int stride = plane.stride;
  *first_j = std::min(plane.phase_rows, std::max(0, (pad_top - phase + stride - 1) / stride));
  *end_j = std::max(*first_j,
                    std::min(plane.phase_rows, (end_row + pad_top - phase + stride - 1) / stride));
}

}  // namespace

PaddedPlane PaddedPlaneFor(const Window2d& window, const PlanePair& shape) {
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

PaddedPlane AlignedPaddedPlaneFor(const Window2d& window, const PlanePair& shape,
                                  size_t most_bytes) {
  PaddedPlane plane = PaddedPlaneFor(window, shape);
  PaddedPlane aligned = plane;
  aligned.phase_rows =
      (plane.phase_rows + kCacheLineFloats - 1) / kCacheLineFloats * kCacheLineFloats;
  return aligned.plane_floats() * sizeof(float) <= most_bytes ? aligned : plane;
}

void CopyIntoPlane(const float* source, int input_h, int input_w, int pad_top, int pad_left,
                   const PaddedPlane& plane, float* target) {
  CopyColumnsIntoPlane(source, input_h, input_w, pad_top, pad_left, 0, input_w, plane, target);
}

void CopyColumnsIntoPlane(const float* source, int input_h, int input_w, int pad_top, int pad_left,
                          int first_col, int end_col, const PaddedPlane& plane, float* target) {
  // The input rows and columns that land inside the plane (the last windows may stop before the
  // input's end).
  const int end_row = std::min(input_h, plane.rows - pad_top);
  end_col = std::min({end_col, input_w, plane.cols - pad_left});
  first_col = std::max(first_col, 0);
  const int stride = plane.stride;
  if (stride == 2) {
    for (int col = first_col; col < end_col; ++col) {
      SplitColumnInTwo(source + static_cast<size_t>(col) * input_h, end_row, pad_top, plane,
                       target + static_cast<size_t>(col + pad_left) * plane.column_floats());
    }
    return;
  }
  // One phase at a time: a phase's range of rows is the same in every column (two divisions per
  // phase, not per column, which cost more than the copy on small maps).
  for (int phase = 0; phase < stride; ++phase) {
    int first_j = 0;
    int end_j = 0;
    RowsWithInput(plane, pad_top, end_row, phase, &first_j, &end_j);
    for (int col = first_col; col < end_col; ++col) {
      float* to = target + static_cast<size_t>(col + pad_left) * plane.column_floats() +
                  static_cast<size_t>(phase) * plane.phase_rows;
      const float* input_row = source + static_cast<size_t>(col) * input_h + phase - pad_top;
      if (stride == 1) {
        CopyRun(input_row + first_j, end_j - first_j, to + first_j);
      } else {
        for (int j = first_j; j < end_j; ++j) to[j] = input_row[static_cast<ptrdiff_t>(j) * stride];
      }
    }
  }
}

}  // namespace lumen
