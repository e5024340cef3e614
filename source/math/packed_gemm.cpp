#include "lumen/math/packed_gemm.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "lumen/base/scratch.hpp"

namespace lumen {
namespace {

// The micro-kernel keeps a kRows x kColumns tile of C in registers: 2 vectors of kLanes floats
// per column. The sizes use (almost) every vector register: 2 * 14 accumulators + 2 for A + 1 for
// the broadcast B value with AVX-512's 32 registers, 2 * 6 + 3 with AVX2's 16.
#if defined(__AVX512F__)
constexpr int kLanes = 16;
constexpr int kColumns = 14;
#elif defined(__AVX__)
constexpr int kLanes = 8;
constexpr int kColumns = 6;
#else
constexpr int kLanes = 4;
constexpr int kColumns = 6;
#endif
constexpr int kRows = 2 * kLanes;

// GCC's portable SIMD type: arithmetic on it compiles to AVX-512, AVX2 or SSE instructions.
using Vector = float __attribute__((vector_size(kLanes * sizeof(float))));

// Cache blocking: a packed block of A (kBlockRows x kBlockDepth, 192 KB) stays in the L2 cache
// while every panel of B (kBlockDepth x kColumns, 14 KB with AVX-512) streams past it from L1.
constexpr int kBlockDepth = 256;
constexpr int kBlockRows = 6 * kRows;

Vector LoadVector(const float* source) {
  Vector value;
  std::memcpy(&value, source, sizeof(value));
  return value;
}

void StoreVector(float* target, const Vector& value) { std::memcpy(target, &value, sizeof(value)); }

// C[0:rows, 0:cols] (=, or += when accumulate) A_panel * B_panel over `depth`, where the packed
// A panel holds kRows floats per step and the B panel kColumns floats per step.
void MicroKernel(int depth, const float* a, const float* b, float* c, int ldc, int rows, int cols,
                 bool accumulate) {
  Vector sum[2][kColumns] = {};
  for (int p = 0; p < depth; ++p) {
    const Vector a0 = LoadVector(a + p * kRows);
    const Vector a1 = LoadVector(a + p * kRows + kLanes);
    const float* bp = b + p * kColumns;
#pragma GCC unroll 16
    for (int j = 0; j < kColumns; ++j) {
      sum[0][j] += a0 * bp[j];  // a vector times a scalar: the scalar is broadcast
      sum[1][j] += a1 * bp[j];
    }
  }
  if (rows == kRows && cols == kColumns) {
    for (int j = 0; j < kColumns; ++j) {
      float* column = c + static_cast<size_t>(j) * ldc;
      if (accumulate) {
        sum[0][j] += LoadVector(column);
        sum[1][j] += LoadVector(column + kLanes);
      }
      StoreVector(column, sum[0][j]);
      StoreVector(column + kLanes, sum[1][j]);
    }
    return;
  }
  // A tile on the edge of C: write only the part inside.
  float tile[kColumns][kRows];
  for (int j = 0; j < kColumns; ++j) {
    StoreVector(tile[j], sum[0][j]);
    StoreVector(tile[j] + kLanes, sum[1][j]);
  }
  for (int j = 0; j < cols; ++j) {
    float* column = c + static_cast<size_t>(j) * ldc;
    for (int i = 0; i < rows; ++i) column[i] = accumulate ? column[i] + tile[j][i] : tile[j][i];
  }
}

// Packs rows [first_row, first_row + rows) x depth [first_depth, first_depth + depth) of the
// column-major A into kRows-row panels (depth steps of kRows floats), padding with zeros.
void PackA(const float* a, int lda, int first_row, int rows, int first_depth, int depth,
           float* packed) {
  for (int panel = 0; panel < rows; panel += kRows) {
    const int valid = std::min(kRows, rows - panel);
    for (int p = 0; p < depth; ++p) {
      const float* source = a + static_cast<size_t>(first_depth + p) * lda + first_row + panel;
      std::copy(source, source + valid, packed);
      std::fill(packed + valid, packed + kRows, 0.0f);
      packed += kRows;
    }
  }
}

}  // namespace

int PackedMatrix::Columns() { return kColumns; }

PackedMatrix::PackedMatrix(const float* b, int k, int n, int ldb) : rows_(k), cols_(n) {
  const int panels = (n + kColumns - 1) / kColumns;
  data_.assign(static_cast<size_t>(panels) * k * kColumns, 0.0f);
  for (int panel = 0; panel < panels; ++panel) {
    float* target = data_.data() + static_cast<size_t>(panel) * k * kColumns;
    for (int j = 0; j < kColumns && panel * kColumns + j < n; ++j) {
      const float* column = b + static_cast<size_t>(panel * kColumns + j) * ldb;
      for (int p = 0; p < k; ++p) target[p * kColumns + j] = column[p];
    }
  }
}

void PackedGemm(int m, const float* a, int lda, const PackedMatrix& b, float* c, int ldc,
                bool accumulate) {
  const int n = b.cols();
  const int k = b.rows();
  if (m <= 0 || n <= 0) return;
  const int panels = (n + kColumns - 1) / kColumns;
  const int row_blocks = (m + kBlockRows - 1) / kBlockRows;
  // Tasks own disjoint tiles of C: a block of rows times a group of panels. With few row blocks
  // (small m, as in a CNN's last layers) the panels are split too, so every thread gets work.
  const bool parallel = !omp_in_parallel() && omp_get_max_threads() > 1;
  const int threads = parallel ? omp_get_max_threads() : 1;
  const int panel_groups =
      row_blocks >= 2 * threads ? 1 : std::min(panels, (2 * threads + row_blocks - 1) / row_blocks);
  const int panels_per_group = (panels + panel_groups - 1) / panel_groups;
  const int tasks = row_blocks * panel_groups;
#pragma omp parallel for if (parallel) schedule(dynamic, 1)
  for (int task = 0; task < tasks; ++task) {
    float* packed_a =
        ThreadScratch(ScratchSlot::kGemmPacking, static_cast<size_t>(kBlockRows) * kBlockDepth);
    const int first_row = task / panel_groups * kBlockRows;
    const int rows = std::min(kBlockRows, m - first_row);
    const int first_panel = task % panel_groups * panels_per_group;
    const int end_panel = std::min(panels, first_panel + panels_per_group);
    for (int first_depth = 0; first_depth < k; first_depth += kBlockDepth) {
      const int depth = std::min(kBlockDepth, k - first_depth);
      PackA(a, lda, first_row, rows, first_depth, depth, packed_a);
      const bool add = accumulate || first_depth > 0;
      for (int panel = first_panel; panel < end_panel; ++panel) {
        const float* b_panel = b.panel(panel) + static_cast<size_t>(first_depth) * kColumns;
        const int cols = std::min(kColumns, n - panel * kColumns);
        for (int row = 0; row < rows; row += kRows) {
          MicroKernel(depth, packed_a + static_cast<size_t>(row) * depth, b_panel,
                      c + static_cast<size_t>(panel) * kColumns * ldc + first_row + row, ldc,
                      std::min(kRows, rows - row), cols, add);
        }
      }
    }
  }
}

void ReferenceGemm(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c,
                   int ldc) {
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      float sum = 0.0f;
      for (int p = 0; p < k; ++p)
        sum += a[i + static_cast<size_t>(p) * lda] * b[p + static_cast<size_t>(j) * ldb];
      c[i + static_cast<size_t>(j) * ldc] = sum;
    }
  }
}

}  // namespace lumen
