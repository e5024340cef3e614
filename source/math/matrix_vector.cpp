#include "math/matrix_vector.hpp"

#include "math/simd.hpp"

namespace lumen {
namespace {

// GCC's portable SIMD type, one AVX2 register.
constexpr int kLanes = 8;
using Vector = FloatVector<kLanes>;

// Rows computed together: they share each load of x, and with two sums per row give eight
// independent chains of multiply-adds, enough to keep both FMA units fed.
constexpr int kRowsAtOnce = 4;

float SumLanes(const Vector& value) {
  float sum = 0.0f;
  for (int lane = 0; lane < kLanes; ++lane) sum += value[lane];
  return sum;
}

// y[r] for Rows rows starting at `rows`.
template <int Rows>
void RowsTimesVector(const float* rows, size_t row_stride, const float* x, int n, float* y) {
  Vector even[Rows] = {};
  Vector odd[Rows] = {};
  int k = 0;
  for (; k + 2 * kLanes <= n; k += 2 * kLanes) {
    const Vector x_even = LoadVector<Vector>(x + k);
    const Vector x_odd = LoadVector<Vector>(x + k + kLanes);
#pragma GCC unroll 4
    for (int r = 0; r < Rows; ++r) {
      even[r] += LoadVector<Vector>(rows + r * row_stride + k) * x_even;
      odd[r] += LoadVector<Vector>(rows + r * row_stride + k + kLanes) * x_odd;
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < Rows; ++r) {
    float sum = SumLanes(even[r] + odd[r]);
    for (int tail = k; tail < n; ++tail) sum += rows[r * row_stride + tail] * x[tail];
    y[r] = sum;
  }
}

}  // namespace

void MatrixVector(const float* rows, size_t row_stride, int count, const float* x, int n,
                  float* y) {
  int r = 0;
  for (; r + kRowsAtOnce <= count; r += kRowsAtOnce) {
    RowsTimesVector<kRowsAtOnce>(rows + r * row_stride, row_stride, x, n, y + r);
  }
  for (; r < count; ++r) RowsTimesVector<1>(rows + r * row_stride, row_stride, x, n, y + r);
}

void MatrixVectorReference(const float* rows, size_t row_stride, int count, const float* x, int n,
                           float* y) {
  for (int r = 0; r < count; ++r) {
    float sum = 0.0f;
    for (int k = 0; k < n; ++k) sum += rows[r * row_stride + k] * x[k];
    y[r] = sum;
  }
}

}  // namespace lumen
