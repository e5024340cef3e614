// A small GEMM for convolutions, whose right-hand side (the weights) is packed once.
//
// Why not always call OpenBLAS? A BLAS GEMM re-packs both operands on every call. For the late
// layers of a CNN the weights are far larger than the activations (ResNet18's last 3x3 layers
// multiply a 49 x 4608 matrix by a 4608 x 512 one), so sgemm spends much of its time packing the
// same 9 MB of weights again, every run. Packing them once when the layer is prepared removes that.
// The computing core is the classic one from GotoBLAS/BLIS: a register-blocked micro-kernel that
// keeps a kRows x kColumns tile of C in vector registers while it walks the shared dimension.
#ifndef LUMEN_MATH_PACKED_GEMM_HPP_
#define LUMEN_MATH_PACKED_GEMM_HPP_

#include <cstddef>
#include <vector>

namespace lumen {

// The right-hand side B (k x n) of C = A * B, rearranged for the micro-kernel: panels of
// kColumns columns, each panel stored row by row (k rows of kColumns floats), the last panel
// padded with zeros.
class PackedMatrix {
 public:
  // An empty matrix.
  PackedMatrix() = default;
  // Packs the column-major k x n matrix `b` with leading dimension `ldb`.
  PackedMatrix(const float* b, int k, int n, int ldb);

  // Rows (the shared dimension k).
  int rows() const { return rows_; }
  // Columns (n).
  int cols() const { return cols_; }
  // Start of panel `panel`: rows() x kColumns floats, row-major.
  const float* panel(int panel) const {
    return data_.data() + static_cast<size_t>(panel) * rows_ * Columns();
  }
  // Columns per panel: the micro-kernel's width.
  static int Columns();

 private:
  int rows_ = 0;
  int cols_ = 0;
  std::vector<float> data_;
};

// Computes C = A * B (or C += A * B when `accumulate`), with A an m x k column-major matrix
// (leading dimension lda), B packed, and C an m x n column-major matrix (leading dimension ldc).
// Splits the work over OpenMP threads unless called from inside a parallel region.
void PackedGemm(int m, const float* a, int lda, const PackedMatrix& b, float* c, int ldc,
                bool accumulate = false);

// The same product, computed by three plain loops: the reference the tests compare against.
void ReferenceGemm(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c,
                   int ldc);

}  // namespace lumen

#endif  // LUMEN_MATH_PACKED_GEMM_HPP_
