#include "lumen/math/gemm.hpp"

#include <cblas.h>

namespace lumen {

void Gemm(int m, int n, int k, const float* a, int lda, bool transpose_a, const float* b, int ldb,
          bool transpose_b, float beta, float* c, int ldc) {
  cblas_sgemm(CblasColMajor, transpose_a ? CblasTrans : CblasNoTrans,
              transpose_b ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace lumen
