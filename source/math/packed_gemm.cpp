#include "math/packed_gemm.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "base/compute_context.hpp"
#include "math/micro_kernel.hpp"

namespace lumen {
namespace {

// The micro-kernel (math/micro_kernel.hpp) keeps a kRows x kColumns tile of C in registers.
constexpr int kRows = kPanelRows;
constexpr int kColumns = kPanelColumns;

// Steps of the shared dimension per pass: a 256-deep slice of an A panel is 32 KB with AVX-512.
constexpr int kBlockDepth = 256;

// Row panels PackedGemm packs at a time: enough rows to reuse each B panel well, few enough for
// the packed block to stay in the L2 cache.
constexpr int kBlockPanels = 4;

}  // namespace

size_t PackedRowsSize(int rows, int depth) {
  return static_cast<size_t>((rows + kRows - 1) / kRows) * depth * kRows;
}

void PackRows(const float* a, int lda, int m, int k, float* packed) {
  // A few columns of `a` at a time, each walked from top to bottom: reading all k columns for
  // one panel, then all k for the next, would touch k places at once, lda apart. A 1x1
  // convolution's columns are whole feature maps (lda = H*W), and at 160x160 they are exactly
  // 25 * 4 KB apart, so all k of them fall into one set of the L1 cache and evict each other;
  // kPackColumns streams at a time stay within the cache's ways and the prefetcher's reach.
  constexpr int kPackColumns = 8;
  const int panels = (m + kRows - 1) / kRows;
  for (int first_column = 0; first_column < k; first_column += kPackColumns) {
    const int end_column = std::min(k, first_column + kPackColumns);
    for (int panel = 0; panel < panels; ++panel) {
      const int first = panel * kRows;
      const int valid = std::min(kRows, m - first);
      for (int p = first_column; p < end_column; ++p) {
        const float* source = a + static_cast<size_t>(p) * lda + first;
        float* target = packed + PackedRowIndex(first, p, k);
        if (valid == kRows) {  // a copy of constant size: two or four vector moves, no call
          std::memcpy(target, source, sizeof(float) * kRows);
        } else {
          std::copy(source, source + valid, target);
          std::fill(target + valid, target + kRows, 0.0f);
        }
      }
    }
  }
}

void PackedMatrix::PackTransposed(const float* bt, int k, int n, int ldbt,
                                  const ComputeContext& context) {
  rows_ = k;
  cols_ = n;
  const int panels = (n + kColumns - 1) / kColumns;
  data_.resize(static_cast<size_t>(panels) * k * kColumns);
  // Rebuilt on every run of a layer, so the threads share the copying, row by row.
  ParallelFor(context.pool, k, [&](std::ptrdiff_t p) {
    const float* row = bt + static_cast<size_t>(p) * ldbt;
    for (int panel = 0; panel < panels; ++panel) {
      float* target = data_.data() + (static_cast<size_t>(panel) * k + p) * kColumns;
      const int valid = std::min(kColumns, n - panel * kColumns);
      std::copy(row + panel * kColumns, row + panel * kColumns + valid, target);
      std::fill(target + valid, target + kColumns, 0.0f);
    }
  });
}

size_t PackedColumnsSize(int k, int n) {
  return static_cast<size_t>((n + kColumns - 1) / kColumns) * k * kColumns;
}

void PackColumns(const float* b, std::ptrdiff_t row_stride, std::ptrdiff_t col_stride, int k, int n,
                 float* packed) {
  for (int first = 0; first < n; first += kColumns) {
    const int valid = std::min(kColumns, n - first);
    const float* columns = b + first * col_stride;
    if (col_stride == 1 && valid == kColumns) {  // a row of the panel is contiguous in b
      for (int p = 0; p < k; ++p, packed += kColumns) {
        std::memcpy(packed, columns + p * row_stride, sizeof(float) * kColumns);  // inlined
      }
      continue;
    }
    // One loop over the whole panel row, padding included: a std::fill of the few padding floats
    // became a call to memset for every row.
    for (int p = 0; p < k; ++p, packed += kColumns) {
      const float* source = columns + p * row_stride;
      for (int j = 0; j < kColumns; ++j) packed[j] = j < valid ? source[j * col_stride] : 0.0f;
    }
  }
}

void GemmPacked(int m, const float* packed_a, const PackedMatrix& b, float* c, int ldc,
                int first_panel, int end_panel, const GemmEpilogue& epilogue) {
  GemmPacked(m, packed_a, b.view(), c, ldc, first_panel, end_panel, epilogue);
}

void PackedGemm(int m, const float* a, int lda, const PackedMatrix& b, float* c, int ldc,
                const ComputeContext& context, const GemmEpilogue& epilogue) {
  PackedGemm(m, a, lda, b.view(), c, ldc, context, epilogue);
}

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

void GemmPacked(int m, const float* packed_a, const PackedPanels& b, float* c, int ldc,
                int first_panel, int end_panel, const GemmEpilogue& epilogue) {
  const int n = b.cols();
  const int k = b.rows();
  if (end_panel < 0) end_panel = b.panels();
  // Slices of the shared dimension small enough that a slice of an A panel (32 KB) stays in L1
  // while it meets every B panel; the slices' products add up in C.
  for (int first_depth = 0; first_depth < k; first_depth += kBlockDepth) {
    const int depth = std::min(kBlockDepth, k - first_depth);
    const bool last_slice = first_depth + depth == k;  // the tiles leave the registers finished
    for (int first_row = 0; first_row < m; first_row += kRows) {
      const float* a_panel = packed_a + (static_cast<size_t>(first_row) * k +
                                         static_cast<size_t>(first_depth) * kRows);
      const int rows = std::min(kRows, m - first_row);
      for (int panel = first_panel; panel < end_panel; ++panel) {
        const int first_col = panel * kColumns;
        const float* b_slice = b.panel(panel) + static_cast<size_t>(first_depth) * kColumns;
        // Next: the following panel of this slice, or else the first panel of the next slice.
        const float* next_b =
            panel + 1 < end_panel
                ? b_slice + static_cast<size_t>(k) * kColumns
                : b.panel(first_panel) + static_cast<size_t>(first_depth + depth) * kColumns;
        MicroKernel(
            depth, [a_panel](int p) { return a_panel + p * kRows; }, b_slice, next_b,
            c + static_cast<size_t>(first_col) * ldc + first_row, static_cast<size_t>(ldc), rows,
            std::min(kColumns, n - first_col), first_depth > 0,
            last_slice ? epilogue.FromColumn(first_col) : GemmEpilogue{});
      }
    }
  }
}

void PackedGemm(int m, const float* a, int lda, const PackedPanels& b, float* c, int ldc,
                const ComputeContext& context, const GemmEpilogue& epilogue) {
  const int k = b.rows();
  // Tasks own disjoint tiles of C: an even share of the row panels times an even share of the
  // column panels. Each task packs its own rows of A and streams its own panels of B, so the split
  // decides how often each is read: row_parts copies of B, column_parts copies of A. Take the
  // split that reads least: row splits for a tall A (a large feature map), column splits for large
  // weights and few rows (the 7x7 maps of ResNet's last layers, where B is 9 MB).
  //
  // One task per thread: each thread's columns of C and panels of B stay in one contiguous range.
  // Four smaller tasks per thread, taken dynamically, interleaved the threads' ranges and made
  // ResNet18 4% slower on 2 threads (9.7 -> 10.1 ms), and were no faster beside a busy process.
  const int wanted = context.threads();
  const int row_panels = (m + kRows - 1) / kRows;
  const auto column_parts_for = [&](int row_parts) {
    return std::min(b.panels(), (wanted + row_parts - 1) / row_parts);
  };
  int row_parts = 1;
  for (int parts = 2; parts <= std::min(row_panels, wanted); ++parts) {
    const auto traffic = [&](int rows) {  // floats read, in units of k
      return static_cast<int64_t>(rows) * b.cols() +
             static_cast<int64_t>(column_parts_for(rows)) * m;
    };
    if (traffic(parts) < traffic(row_parts)) row_parts = parts;
  }
  const int column_parts = column_parts_for(row_parts);
  const int tasks = row_parts * column_parts;
  const auto share = [](int items, int parts, int part) {  // first item of an even share
    return static_cast<int>(static_cast<int64_t>(items) * part / parts);
  };
  ParallelFor(
      context.pool, tasks,
      [&](std::ptrdiff_t task_index) {
        const int task = static_cast<int>(task_index);
        const int row_part = task / column_parts;
        const int column_part = task % column_parts;
        const int first_panel = share(b.panels(), column_parts, column_part);
        const int end_panel = share(b.panels(), column_parts, column_part + 1);
        const int end_row = std::min(m, share(row_panels, row_parts, row_part + 1) * kRows);
        for (int first_row = share(row_panels, row_parts, row_part) * kRows; first_row < end_row;
             first_row += kBlockPanels * kRows) {
          const int rows = std::min(kBlockPanels * kRows, end_row - first_row);
          float* packed = context.Scratch(ScratchSlot::kGemmPacking, PackedRowsSize(rows, k));
          PackRows(a + first_row, lda, rows, k, packed);
          GemmPacked(rows, packed, b, c + first_row, ldc, first_panel, end_panel, epilogue);
        }
      },
      Schedule::kDynamic, tasks > 1);
}

size_t PackedGemmScratchSize(int m, int k) {
  return PackedRowsSize(std::min(m, kBlockPanels * kRows), k);
}

void ReferenceGemm(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c,
                   int ldc) {
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      float sum = 0.0f;
      for (int p = 0; p < k; ++p) {
        sum += a[i + static_cast<size_t>(p) * lda] * b[p + static_cast<size_t>(j) * ldb];
      }
      c[i + static_cast<size_t>(j) * ldc] = sum;
    }
  }
}

}  // namespace lumen
