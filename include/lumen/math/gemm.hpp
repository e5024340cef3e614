// GEMM on column-major matrices: the one call that does almost all of a CNN's arithmetic.
#ifndef LUMEN_MATH_GEMM_HPP_
#define LUMEN_MATH_GEMM_HPP_

namespace lumen {

// Computes C = A * B + beta * C for column-major matrices (C is m x n, A is m x k, B is k x n,
// each with its leading dimension), with OpenBLAS's sgemm. `transpose_a` / `transpose_b` use A^T
// (stored k x m) or B^T (stored n x k) instead.
void Gemm(int m, int n, int k, const float* a, int lda, bool transpose_a, const float* b, int ldb,
          bool transpose_b, float beta, float* c, int ldc);

}  // namespace lumen

#endif  // LUMEN_MATH_GEMM_HPP_
