// A small GEMM for convolutions: C = A * B with B (the weights) packed once, A packed by the
// caller.
//
// Why not always call OpenBLAS? A BLAS GEMM re-packs both operands on every call. For the late
// layers of a CNN the weights are far larger than the activations (ResNet18's last 3x3 layers
// multiply a 49 x 4608 matrix by a 4608 x 512 one), so sgemm spends much of its time packing the
// same 9 MB of weights again, every run. And the left operand of a convolution is built by the
// convolution itself (im2col rows, Winograd tiles), so it can be written straight into the layout
// the micro-kernel reads, instead of being written once and packed again.
//
// The computing core is the classic one from GotoBLAS/BLIS: a micro-kernel that keeps a
// kPanelRows x kPanelColumns tile of C in vector registers while it walks the shared dimension,
// reading A from a row panel and B from a column panel:
//
//   row panel of A (kPanelRows rows):    for each k: kPanelRows floats   (rows of column k)
//   column panel of B (kPanelColumns):   for each k: kPanelColumns floats (columns of row k)
#ifndef LUMEN_MATH_PACKED_GEMM_HPP_
#define LUMEN_MATH_PACKED_GEMM_HPP_

#include <cstddef>
#include <vector>

#include "base/compute_context.hpp"
#include "math/simd.hpp"

namespace lumen {

// The micro-kernel's tile of C: kPanelRows rows (two SIMD vectors) by kPanelColumns columns,
// sized to fill the vector registers of the instruction set the library is compiled for.
#if defined(__AVX512F__)
inline constexpr int kPanelRows = 32;
inline constexpr int kPanelColumns = 14;
#elif defined(__AVX__)
inline constexpr int kPanelRows = 16;
inline constexpr int kPanelColumns = 6;
#else
inline constexpr int kPanelRows = 8;
inline constexpr int kPanelColumns = 6;
#endif

// What the GEMM does to each finished tile of C while it is still in registers: adds a bias per
// column and clamps, the last step of most convolutions (bias, then ReLU or ReLU6), which would
// otherwise be a pass of its own over C. The default does nothing.
struct GemmEpilogue {
  const float* bias = nullptr;  // one per column of C, or null for none
  LaneClamp clamp = LaneClamp::kNone;

  // The same epilogue for the tile whose first column is `first_column` (its bias from there on).
  GemmEpilogue FromColumn(int first_column) const {
    return {bias == nullptr ? nullptr : bias + first_column, clamp};
  }
};

// Floats that `rows` rows of depth `depth`, packed into row panels, occupy (the last panel is
// padded to kPanelRows).
size_t PackedRowsSize(int rows, int depth);

// Index in a packed A of element (row, k): row panels one after another, each depth x kPanelRows.
inline size_t PackedRowIndex(int row, int k, int depth) {
  return (static_cast<size_t>(row / kPanelRows) * depth + k) * kPanelRows + row % kPanelRows;
}

// Packs the column-major m x k matrix `a` (leading dimension lda) into row panels, zero padded.
void PackRows(const float* a, int lda, int m, int k, float* packed);

// A right-hand side B (k x n) packed into column panels, in memory owned elsewhere: a
// PackedMatrix's, or scratch that a layer packs a per-run operand into with PackColumns.
class PackedPanels {
 public:
  // Views `data`: the panels of a k x n matrix as PackColumns writes them.
  PackedPanels(const float* data, int k, int n) : data_(data), rows_(k), cols_(n) {}

  // Rows (the shared dimension k).
  int rows() const { return rows_; }
  // Columns (n).
  int cols() const { return cols_; }
  // Number of column panels.
  int panels() const { return (cols_ + kPanelColumns - 1) / kPanelColumns; }
  // Start of column panel `panel`: rows() x kPanelColumns floats, row by row.
  const float* panel(int panel) const {
    return data_ + static_cast<size_t>(panel) * rows_ * kPanelColumns;
  }

 private:
  const float* data_;
  int rows_;
  int cols_;
};

// Floats a k x n matrix occupies once packed into column panels (the last one zero padded).
size_t PackedColumnsSize(int k, int n);

// Packs the k x n matrix whose element (p, j) is b[p * row_stride + j * col_stride] into column
// panels at `packed` (PackedColumnsSize(k, n) floats). Any layout: column-major (row_stride 1),
// row-major or transposed (col_stride 1), so per-run operands need no transposing copy first.
void PackColumns(const float* b, std::ptrdiff_t row_stride, std::ptrdiff_t col_stride, int k, int n,
                 float* packed);

// GemmPacked and PackedGemm (below) for a B packed into memory owned elsewhere.
void GemmPacked(int m, const float* packed_a, const PackedPanels& b, float* c, int ldc,
                int first_panel = 0, int end_panel = -1, const GemmEpilogue& epilogue = {});
void PackedGemm(int m, const float* a, int lda, const PackedPanels& b, float* c, int ldc,
                const ComputeContext& context, const GemmEpilogue& epilogue = {});

// The right-hand side B (k x n), packed into column panels once, the last one zero padded.
class PackedMatrix {
 public:
  // An empty matrix.
  PackedMatrix() = default;
  // Packs the column-major k x n matrix `b` with leading dimension `ldb`.
  PackedMatrix(const float* b, int k, int n, int ldb);

  // Packs B given transposed (`bt` is n x k column-major), reusing this object's memory: for a B
  // built anew on every run, it allocates only the first time.
  void PackTransposed(const float* bt, int k, int n, int ldbt, const ComputeContext& context);

  // Rows (the shared dimension k).
  int rows() const { return rows_; }
  // Columns (n).
  int cols() const { return cols_; }
  // Number of column panels.
  int panels() const { return (cols_ + kPanelColumns - 1) / kPanelColumns; }
  // Start of column panel `panel`: rows() x kPanelColumns floats, row by row.
  const float* panel(int panel) const {
    return data_.data() + static_cast<size_t>(panel) * rows_ * kPanelColumns;
  }
  // The panels as a view, for the multiply routines.
  PackedPanels view() const { return PackedPanels(data_.data(), rows_, cols_); }

 private:
  int rows_ = 0;
  int cols_ = 0;
  std::vector<float> data_;
};

// C = A * B for an A of m rows already packed into row panels (see PackRows) and C column-major
// m x n with leading dimension ldc; only B's column panels [first_panel, end_panel) are computed
// (end_panel -1: all), each finished by `epilogue`. Runs on the calling thread: convolutions call
// it from their own parallel loops, one block of rows (and, when rows are few, one group of
// column panels) per call.
void GemmPacked(int m, const float* packed_a, const PackedMatrix& b, float* c, int ldc,
                int first_panel = 0, int end_panel = -1, const GemmEpilogue& epilogue = {});

// C = A * B for a column-major A (m x k, leading dimension lda): packs A block by block (in the
// context's scratch) and spreads the blocks over the context's threads (one thread when called
// from inside a parallel loop).
void PackedGemm(int m, const float* a, int lda, const PackedMatrix& b, float* c, int ldc,
                const ComputeContext& context, const GemmEpilogue& epilogue = {});

// Floats of ScratchSlot::kGemmPacking that PackedGemm asks each thread for when A has m rows and
// depth k: callers reserve it when they plan, so that their runs do not allocate.
size_t PackedGemmScratchSize(int m, int k);

// The same product, computed by three plain loops: the reference the tests compare against.
void ReferenceGemm(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c,
                   int ldc);

}  // namespace lumen

#endif  // LUMEN_MATH_PACKED_GEMM_HPP_
