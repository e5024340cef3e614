// The GEMM micro-kernel: PackedGemm's, and the small-depth convolution's, which reads its left
// operand from a padded input instead of from packed panels. Both keep a kPanelRows x
// kPanelColumns tile of C in vector registers while they walk the shared dimension: 2 vectors per
// column, which use (almost) every register: 2 * 14 sums + 2 for A + 1 for the broadcast B value
// with AVX-512's 32 registers, 2 * 6 + 3 with AVX2's 16.
#ifndef LUMEN_MATH_MICRO_KERNEL_HPP_
#define LUMEN_MATH_MICRO_KERNEL_HPP_

#include <cstddef>

#include "math/packed_gemm.hpp"
#include "math/simd.hpp"

namespace lumen {

// The epilogue's bias for column j and its clamp on one vector of that column's sums, lane by
// lane (ClampLanes lets NaN through, as PyTorch's clamps do).
template <typename Vector>
inline void FinishSums(Vector& value, const GemmEpilogue& epilogue, int j) {
  if (epilogue.bias != nullptr) value += epilogue.bias[j];
  value = ClampLanes(value, epilogue.clamp);
}

// Stores the first `rows` x `cols` of a tile of C kept in `tile` (column j's rows at tile[j]),
// after adding the sums already in C when accumulating, then the epilogue's bias and clamp: the
// micro-kernels' way out for a tile on the edge of C.
template <int kColumns, int kRows>
void StoreTileEdge(float (&tile)[kColumns][kRows], float* c, size_t ldc, int rows, int cols,
                   bool accumulate, const GemmEpilogue& epilogue) {
  constexpr int kLanes = kPanelRows / 2;
  using Vector = FloatVector<kLanes>;
  static_assert(kRows % kLanes == 0, "a tile's column is whole vectors");
  // Loops of known length with a condition, not copies of `rows` floats: the compiler makes them
  // masked loads and stores, where std::copy was a call to memmove per column (3% of SqueezeNet's
  // time, whose 13x13 maps leave 9 rows in the last panel of every layer).
  for (int j = 0; j < cols; ++j) {
    float* column = c + j * ldc;
    if (accumulate) {
#pragma GCC unroll 32
      for (int i = 0; i < kRows; ++i) {
        if (i < rows) tile[j][i] += column[i];
      }
    }
    for (int v = 0; v < kRows / kLanes; ++v) {
      Vector value = LoadVector<Vector>(tile[j] + v * kLanes);
      FinishSums(value, epilogue, j);
      StoreVector(tile[j] + v * kLanes, value);
    }
#pragma GCC unroll 32
    for (int i = 0; i < kRows; ++i) {
      if (i < rows) column[i] = tile[j][i];
    }
  }
}

// C[0:rows, 0:cols] (=, or += when accumulate) A * B over `depth` steps: step p multiplies the
// first kVectors vectors of the kPanelRows floats at a_rows(p) (a packed row panel's p-th column,
// or wherever the caller keeps them) by the first kUsedColumns of the kPanelColumns floats at
// b + p * kPanelColumns (a packed column panel). C is column-major with leading dimension ldc;
// rows <= kVectors vectors, cols <= kUsedColumns. The loop below is where a CNN spends most of its
// time. Callers use MicroKernel, which picks the width and height.
//
// `next_b` is the B panel the caller multiplies next: its lines are requested from memory while
// this panel computes. Weights too large for the caches (ResNet's last layers hold 2-9 MB each)
// then stream in alongside the arithmetic instead of stalling it, one line per step.
//
// `epilogue` finishes the tile in registers before it is stored (after the sums already in C are
// added, when accumulating): its bias (bias[j] for column j < cols), then its clamp.
template <int kUsedColumns, int kVectors, typename RowsOfA>
void MicroKernelOfShape(int depth, RowsOfA a_rows, const float* b, const float* next_b, float* c,
                        size_t ldc, int rows, int cols, bool accumulate,
                        const GemmEpilogue& epilogue) {
  constexpr int kLanes = kPanelRows / 2;
  constexpr int kRows = kVectors * kLanes;
  constexpr int kColumns = kUsedColumns;
  using Vector = FloatVector<kLanes>;
  // Every loop over j below is unrolled, so that `sum` lives in registers from start to end: with
  // one loop left rolled, GCC kept the array on the stack, zeroed it with a call to memset and
  // spilled the sums after the loop, a fixed cost that a short product (attention's depth-32
  // Q K^T) paid on every tile.
  Vector sum[kVectors][kColumns];
#pragma GCC unroll 16
  for (int j = 0; j < kColumns; ++j) {
#pragma GCC unroll 2
    for (int v = 0; v < kVectors; ++v) sum[v][j] = Vector{};
  }
  for (int p = 0; p < depth; ++p) {
    const float* a = a_rows(p);
    Vector a_vectors[kVectors];
#pragma GCC unroll 2
    for (int v = 0; v < kVectors; ++v) a_vectors[v] = LoadVector<Vector>(a + v * kLanes);
    const float* bp = b + p * kPanelColumns;
    __builtin_prefetch(next_b + p * kPanelColumns);
#pragma GCC unroll 16
    for (int j = 0; j < kColumns; ++j) {
#pragma GCC unroll 2
      for (int v = 0; v < kVectors; ++v) {
        sum[v][j] += a_vectors[v] * bp[j];  // a vector times a scalar: the scalar is broadcast
      }
    }
  }
  if (rows == kRows && cols == kColumns) {
#pragma GCC unroll 16
    for (int j = 0; j < kColumns; ++j) {
      float* column = c + j * ldc;
#pragma GCC unroll 2
      for (int v = 0; v < kVectors; ++v) {
        if (accumulate) sum[v][j] += LoadVector<Vector>(column + v * kLanes);
        FinishSums(sum[v][j], epilogue, j);
        StoreVector(column + v * kLanes, sum[v][j]);
      }
    }
    return;
  }
  // A tile on the edge of C: write only the part inside.
  float tile[kColumns][kRows];
#pragma GCC unroll 16
  for (int j = 0; j < kColumns; ++j) {
#pragma GCC unroll 2
    for (int v = 0; v < kVectors; ++v) StoreVector(tile[j] + v * kLanes, sum[v][j]);
  }
  StoreTileEdge<kColumns, kRows>(tile, c, ldc, rows, cols, accumulate, epilogue);
}

// A last row panel of one vector and a few rows more (a 7x7 map's 49 pixels leave 17 rows in
// their second panel of 32), or of those few rows alone (a 14x14 map's 196 leave 4): the vector
// of rows as MicroKernelOfShape<kPanelColumns, 1> computes it (when kVectors is 1), and each of
// the kExtraRows rows after it as a vector across the panel's columns, the row's A value
// broadcast. Per step, with AVX-512: 14 + 2 * kExtraRows multiply-adds for the first kind instead
// of 2 * 14, 2 * kExtraRows (of half the width) for the second instead of 14.
template <int kVectors, int kExtraRows, typename RowsOfA>
void MicroKernelWithExtraRows(int depth, RowsOfA a_rows, const float* b, const float* next_b,
                              float* c, size_t ldc, int rows, int cols, bool accumulate,
                              const GemmEpilogue& epilogue) {
  constexpr int kLanes = kPanelRows / 2;
  constexpr int kColumns = kPanelColumns;
  constexpr int kFirstExtra = kVectors * kLanes;  // the first extra row
  // An extra row's sums are two vectors of kHalf lanes over columns [0, kHalf) and
  // [kColumns - kHalf, kColumns): they overlap (the columns in both get the same sums), but
  // neither load reads past the panel's row, into the next row or past the panel's end.
  constexpr int kHalf = kColumns > 8 ? 8 : 4;
  static_assert(kVectors == 0 || kVectors == 1, "one vector of rows at most");
  static_assert(2 * kHalf >= kColumns && kHalf <= kColumns, "two halves cover a panel's row");
  static_assert(kFirstExtra + kExtraRows <= kPanelRows, "the extra rows lie in the row panel");
  using Vector = FloatVector<kLanes>;
  using Half = FloatVector<kHalf>;
  Vector sum[kColumns];
  Half extra[kExtraRows][2];
#pragma GCC unroll 16
  for (int j = 0; j < kColumns; ++j) sum[j] = Vector{};
#pragma GCC unroll 4
  for (int i = 0; i < kExtraRows; ++i) extra[i][0] = extra[i][1] = Half{};
  for (int p = 0; p < depth; ++p) {
    const float* a = a_rows(p);
    const float* bp = b + p * kPanelColumns;
    __builtin_prefetch(next_b + p * kPanelColumns);
    if constexpr (kVectors == 1) {
      const Vector a_vector = LoadVector<Vector>(a);
#pragma GCC unroll 16
      for (int j = 0; j < kColumns; ++j) sum[j] += a_vector * bp[j];
    }
    const Half low = LoadVector<Half>(bp);
    const Half high = LoadVector<Half>(bp + kColumns - kHalf);
#pragma GCC unroll 4
    for (int i = 0; i < kExtraRows; ++i) {
      extra[i][0] += low * a[kFirstExtra + i];
      extra[i][1] += high * a[kFirstExtra + i];
    }
  }
  // Into a tile of C's layout, the rows past the extra ones zero (finished, never stored).
  float tile[kColumns][kPanelRows];
#pragma GCC unroll 16
  for (int j = 0; j < kColumns; ++j) {
    StoreVector(tile[j], sum[j]);
    StoreVector(tile[j] + kLanes, Vector{});
  }
#pragma GCC unroll 4
  for (int i = 0; i < kExtraRows; ++i) {
    float row[kColumns];
    StoreVector(row, extra[i][0]);
    StoreVector(row + kColumns - kHalf, extra[i][1]);
#pragma GCC unroll 16
    for (int j = 0; j < kColumns; ++j) tile[j][kFirstExtra + i] = row[j];
  }
  StoreTileEdge<kColumns, kPanelRows>(tile, c, ldc, rows, cols, accumulate, epilogue);
}

// MicroKernelWithExtraRows for any 0 < extra_rows <= kExtraRows, found by trying kExtraRows, then
// one fewer, and so on.
template <int kVectors, int kExtraRows, typename RowsOfA>
void MicroKernelWithExtraRowsOf(int extra_rows, int depth, RowsOfA a_rows, const float* b,
                                const float* next_b, float* c, size_t ldc, int rows, int cols,
                                bool accumulate, const GemmEpilogue& epilogue) {
  if constexpr (kExtraRows > 0) {
    if (extra_rows == kExtraRows) {
      MicroKernelWithExtraRows<kVectors, kExtraRows>(depth, a_rows, b, next_b, c, ldc, rows, cols,
                                                     accumulate, epilogue);
    } else {
      MicroKernelWithExtraRowsOf<kVectors, kExtraRows - 1>(extra_rows, depth, a_rows, b, next_b, c,
                                                           ldc, rows, cols, accumulate, epilogue);
    }
  }
}

// MicroKernelOfShape at the narrowest of its widths that covers `cols`: a panel of B with
// fewer valid columns (the last panel of 64 or 128 output channels holds 8 of AVX-512's 14; a
// group of 8 in RegNet, 3 in an RGB output layer) then costs only the products it needs, instead
// of multiplying its zero padding.
template <int kVectors, typename RowsOfA>
void MicroKernelOfHeight(int depth, RowsOfA a_rows, const float* b, const float* next_b, float* c,
                         size_t ldc, int rows, int cols, bool accumulate,
                         const GemmEpilogue& epilogue) {
  if constexpr (kPanelColumns > 8) {
    if (cols <= 4) {
      MicroKernelOfShape<4, kVectors>(depth, a_rows, b, next_b, c, ldc, rows, cols, accumulate,
                                      epilogue);
      return;
    }
    if (cols <= 8) {
      MicroKernelOfShape<8, kVectors>(depth, a_rows, b, next_b, c, ldc, rows, cols, accumulate,
                                      epilogue);
      return;
    }
  }
  MicroKernelOfShape<kPanelColumns, kVectors>(depth, a_rows, b, next_b, c, ldc, rows, cols,
                                              accumulate, epilogue);
}

// Rows past one vector that MicroKernelWithExtraRows computes: 4 with AVX-512, 2 with AVX2 (whose
// 16 registers hold 6 sums, 2 * 2 extra-row halves, A, B's two halves and a broadcast).
inline constexpr int kMostExtraRows = kPanelRows / 8;

// The micro-kernel for a tile of `rows` x `cols`, the fewest products for its rows: a last row
// panel of at most half kPanelRows rows (a 14x14 map's 196 pixels leave 4 in their seventh panel
// of 32) computes one vector per column instead of two; one of up to kMostExtraRows rows past a
// vector (a 7x7 map's 17) or of at most kMostExtraRows rows (the 14x14 map's 4) a vector across
// the columns per such row (MicroKernelWithExtraRows).
template <typename RowsOfA>
void MicroKernel(int depth, RowsOfA a_rows, const float* b, const float* next_b, float* c,
                 size_t ldc, int rows, int cols, bool accumulate,
                 const GemmEpilogue& epilogue = {}) {
  if (rows <= kMostExtraRows) {
    MicroKernelWithExtraRowsOf<0, kMostExtraRows>(rows, depth, a_rows, b, next_b, c, ldc, rows,
                                                  cols, accumulate, epilogue);
  } else if (rows <= kPanelRows / 2) {
    MicroKernelOfHeight<1>(depth, a_rows, b, next_b, c, ldc, rows, cols, accumulate, epilogue);
  } else if (rows <= kPanelRows / 2 + kMostExtraRows) {
    MicroKernelWithExtraRowsOf<1, kMostExtraRows>(rows - kPanelRows / 2, depth, a_rows, b, next_b,
                                                  c, ldc, rows, cols, accumulate, epilogue);
  } else {
    MicroKernelOfHeight<2>(depth, a_rows, b, next_b, c, ldc, rows, cols, accumulate, epilogue);
  }
}

}  // namespace lumen

#endif  // LUMEN_MATH_MICRO_KERNEL_HPP_
