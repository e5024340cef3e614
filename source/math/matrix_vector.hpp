// The matrix-vector product y = W x of a row-major matrix W (PyTorch's (out, in) weight layout)
// and a vector: nn.Linear at batch 1 and a 1x1 convolution on a 1x1 map (squeeze-and-excitation).
// Every weight is read once and used once, so the product is bound by how fast W streams in; the
// fast kernel keeps enough independent sums in flight for that, where one running sum per output
// would wait on its own multiply-adds (4-5 cycles each) and reach a fraction of the bandwidth.
#ifndef LUMEN_MATH_MATRIX_VECTOR_HPP_
#define LUMEN_MATH_MATRIX_VECTOR_HPP_

#include <cstddef>

namespace lumen {

// y[r] = sum over k < n of rows[r * row_stride + k] * x[k], for r in [0, count).
void MatrixVector(const float* rows, size_t row_stride, int count, const float* x, int n, float* y);

// The same product in plain loops, one running sum per output: the reference the fast kernel is
// tested against.
void MatrixVectorReference(const float* rows, size_t row_stride, int count, const float* x, int n,
                           float* y);

}  // namespace lumen

#endif  // LUMEN_MATH_MATRIX_VECTOR_HPP_
