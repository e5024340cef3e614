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

// C[0:rows, 0:cols] (=, or += when accumulate) A * B over `depth` steps: step p multiplies the
// kPanelRows floats at a_rows(p) (a packed row panel's p-th column, or wherever the caller keeps
// them) by the first kUsedColumns of the kPanelColumns floats at b + p * kPanelColumns (a packed
// column panel). C is column-major with leading dimension ldc; cols <= kUsedColumns. The loop
// below is where a CNN spends most of its time. Callers use MicroKernel, which picks the width.
//
// `next_b` is the B panel the caller multiplies next: its lines are requested from memory while
// this panel computes. Weights too large for the caches (ResNet's last layers hold 2-9 MB each)
// then stream in alongside the arithmetic instead of stalling it, one line per step.
//
// `epilogue` finishes the tile in registers before it is stored (after the sums already in C are
// added, when accumulating): its bias (bias[j] for column j < cols), then its clamp.
template <int kUsedColumns, typename RowsOfA>
void MicroKernelOfWidth(int depth, RowsOfA a_rows, const float* b, const float* next_b, float* c,
                        size_t ldc, int rows, int cols, bool accumulate,
                        const GemmEpilogue& epilogue) {
  constexpr int kRows = kPanelRows;
  constexpr int kColumns = kUsedColumns;
  constexpr int kLanes = kRows / 2;
  using Vector = FloatVector<kLanes>;
  // Every loop over j below is unrolled, so that `sum` lives in registers from start to end: with
  // one loop left rolled, GCC kept the array on the stack, zeroed it with a call to memset and
  // spilled the sums after the loop, a fixed cost that a short product (attention's depth-32
  // Q K^T) paid on every tile.
  Vector sum[2][kColumns];
#pragma GCC unroll 16
  for (int j = 0; j < kColumns; ++j) sum[0][j] = sum[1][j] = Vector{};
  for (int p = 0; p < depth; ++p) {
    const float* a = a_rows(p);
    const Vector a0 = LoadVector<Vector>(a);
    const Vector a1 = LoadVector<Vector>(a + kLanes);
    const float* bp = b + p * kPanelColumns;
    __builtin_prefetch(next_b + p * kPanelColumns);
#pragma GCC unroll 16
    for (int j = 0; j < kColumns; ++j) {
      sum[0][j] += a0 * bp[j];  // a vector times a scalar: the scalar is broadcast
      sum[1][j] += a1 * bp[j];
    }
  }
  // The epilogue's bias and clamp, lane by lane (ClampLanes lets NaN through, as PyTorch's
  // clamps do).
  const auto finish = [&epilogue](Vector& value, int j) {
    if (epilogue.bias != nullptr) value += epilogue.bias[j];
    value = ClampLanes(value, epilogue.clamp);
  };
  if (rows == kRows && cols == kColumns) {
#pragma GCC unroll 16
    for (int j = 0; j < kColumns; ++j) {
      float* column = c + j * ldc;
      if (accumulate) {
        sum[0][j] += LoadVector<Vector>(column);
        sum[1][j] += LoadVector<Vector>(column + kLanes);
      }
      finish(sum[0][j], j);
      finish(sum[1][j], j);
      StoreVector(column, sum[0][j]);
      StoreVector(column + kLanes, sum[1][j]);
    }
    return;
  }
  // A tile on the edge of C: write only the part inside.
  float tile[kColumns][kRows];
#pragma GCC unroll 16
  for (int j = 0; j < kColumns; ++j) {
    StoreVector(tile[j], sum[0][j]);
    StoreVector(tile[j] + kLanes, sum[1][j]);
  }
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
    for (int half = 0; half < 2; ++half) {
      Vector value = LoadVector<Vector>(tile[j] + half * kLanes);
      finish(value, j);
      StoreVector(tile[j] + half * kLanes, value);
    }
#pragma GCC unroll 32
    for (int i = 0; i < kRows; ++i) {
      if (i < rows) column[i] = tile[j][i];
    }
  }
}

// The micro-kernel above, at the narrowest of its widths that covers `cols`: a panel of B with
// fewer valid columns (the last panel of 64 or 128 output channels holds 8 of AVX-512's 14; a
// group of 8 in RegNet, 3 in an RGB output layer) then costs only the products it needs, instead
// of multiplying its zero padding.
template <typename RowsOfA>
void MicroKernel(int depth, RowsOfA a_rows, const float* b, const float* next_b, float* c,
                 size_t ldc, int rows, int cols, bool accumulate,
                 const GemmEpilogue& epilogue = {}) {
  if constexpr (kPanelColumns > 8) {
    if (cols <= 4) {
      MicroKernelOfWidth<4>(depth, a_rows, b, next_b, c, ldc, rows, cols, accumulate, epilogue);
      return;
    }
    if (cols <= 8) {
      MicroKernelOfWidth<8>(depth, a_rows, b, next_b, c, ldc, rows, cols, accumulate, epilogue);
      return;
    }
  }
  MicroKernelOfWidth<kPanelColumns>(depth, a_rows, b, next_b, c, ldc, rows, cols, accumulate,
                                    epilogue);
}

}  // namespace lumen

#endif  // LUMEN_MATH_MICRO_KERNEL_HPP_
