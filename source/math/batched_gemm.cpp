#include "math/batched_gemm.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "base/checked_math.hpp"
#include "base/thread_pool.hpp"
#include "math/packed_gemm.hpp"

namespace lumen {
namespace {

// Copies the strided m x n matrix `source` into column-major `target` (leading dimension m).
void GatherColumnMajor(const float* source, std::ptrdiff_t row, std::ptrdiff_t col, int m, int n,
                       float* target) {
  for (int j = 0; j < n; ++j) {
    const float* column = source + j * col;
    float* out = target + static_cast<size_t>(j) * m;
    for (int i = 0; i < m; ++i) out[i] = column[i * row];
  }
}

// Memory offsets of batch `index` in A, B and C.
void BatchOffsets(const BatchedGemm& gemm, size_t index, std::ptrdiff_t* a, std::ptrdiff_t* b,
                  std::ptrdiff_t* c) {
  *a = *b = *c = 0;
  for (size_t dim = gemm.batch.size(); dim-- > 0;) {
    const auto position = static_cast<std::ptrdiff_t>(index % gemm.batch[dim]);
    index /= gemm.batch[dim];
    *a += position * gemm.a_batch[dim];
    *b += position * gemm.b_batch[dim];
    *c += position * gemm.c_batch[dim];
  }
}

}  // namespace

BatchedGemmPlan PlanBatchedGemm(const BatchedGemm& gemm, int threads) {
  BatchedGemmPlan plan;
  BatchedGemm g = gemm;
  // A stride along an extent of 1 is never used: call it 1, so that the layout checks below see
  // a vector as contiguous whichever way it lies.
  if (g.m == 1) g.a_row = g.c_row = 1;
  if (g.n == 1) g.b_col = g.c_col = 1;
  // C = A * B needs C's and A's rows contiguous; C^T = B^T * A^T needs C's and B's columns
  // contiguous. Take the orientation that copies least (a copy is one pass over A or C).
  const int direct_copies = (g.c_row != 1) + (g.a_row != 1);
  const int transposed_copies = (g.c_col != 1) + (g.b_col != 1);
  if (transposed_copies < direct_copies) {
    // A' = B^T: (i, p) = B(p, i); B' = A^T: (p, j) = A(j, p); C' = C^T.
    BatchedGemm t = g;
    t.m = g.n;
    t.n = g.m;
    t.a_row = g.b_col;
    t.a_col = g.b_row;
    t.b_row = g.a_col;
    t.b_col = g.a_row;
    t.c_row = g.c_col;
    t.c_col = g.c_row;
    t.a_batch = g.b_batch;
    t.b_batch = g.a_batch;
    g = std::move(t);
    plan.swap_operands = true;
  }
  plan.gather_a = g.a_row != 1;
  plan.scatter_c = g.c_row != 1;
  // The GEMM takes int leading dimensions.
  if (!plan.gather_a) CheckedInt(g.a_col, "matrix product leading dimension");
  if (!plan.scatter_c) CheckedInt(g.c_col, "matrix product leading dimension");
  plan.batch_count = 1;
  plan.shared_b = true;
  for (size_t dim = 0; dim < g.batch.size(); ++dim) {
    plan.batch_count *= g.batch[dim];
    if (g.batch[dim] > 1 && g.b_batch[dim] != 0) plan.shared_b = false;
  }
  plan.packed_b_floats = PackedColumnsSize(g.k, g.n);
  plan.gathered_a_floats = plan.gather_a ? static_cast<size_t>(g.m) * g.k : 0;
  plan.scattered_c_floats = plan.scatter_c ? static_cast<size_t>(g.m) * g.n : 0;
  // Many products, or small ones: one product per task (each thread packs its own B). Few large
  // products: one after another, each spread over every thread by PackedGemm, which balances
  // better than giving 3 products to 2 threads.
  const double flops = static_cast<double>(g.m) * g.n * g.k;
  const auto count = static_cast<int64_t>(plan.batch_count);
  plan.parallel_batches = threads > 1 && count > 1 &&
                          (count % threads == 0 || count >= 4 * threads || flops < (1 << 18));
  plan.gemm = std::move(g);
  return plan;
}

void ReserveBatchedGemm(const BatchedGemmPlan& plan, Workspace* workspace) {
  const BatchedGemm& g = plan.gemm;
  workspace->Reserve(ScratchSlot::kGemmPacking, PackedGemmScratchSize(g.m, g.k));
  workspace->Reserve(ScratchSlot::kFirst, plan.packed_b_floats);
  workspace->Reserve(ScratchSlot::kSecond, plan.gathered_a_floats);
  workspace->Reserve(ScratchSlot::kThird, plan.scattered_c_floats);
}

void RunBatchedGemm(const BatchedGemmPlan& plan, const float* a, const float* b, float* c,
                    const ComputeContext& context) {
  const BatchedGemm& g = plan.gemm;
  if (plan.batch_count == 0 || g.m == 0 || g.n == 0) return;
  if (plan.swap_operands) std::swap(a, b);
  const float* shared_b = nullptr;
  if (plan.shared_b && g.k > 0) {
    float* packed = context.Scratch(ScratchSlot::kFirst, plan.packed_b_floats);
    PackColumns(b, g.b_row, g.b_col, g.k, g.n, packed);
    shared_b = packed;
  }
  const auto product = [&](size_t index) {
    std::ptrdiff_t a_offset, b_offset, c_offset;
    BatchOffsets(g, index, &a_offset, &b_offset, &c_offset);
    float* c_matrix = c + c_offset;
    if (g.k == 0) {  // an empty sum: PyTorch gives zeros
      for (int j = 0; j < g.n; ++j) {
        for (int i = 0; i < g.m; ++i) c_matrix[i * g.c_row + j * g.c_col] = 0.0f;
      }
      return;
    }
    const float* packed_b = shared_b;
    if (packed_b == nullptr) {
      float* packed = context.Scratch(ScratchSlot::kFirst, plan.packed_b_floats);
      PackColumns(b + b_offset, g.b_row, g.b_col, g.k, g.n, packed);
      packed_b = packed;
    }
    const float* a_matrix = a + a_offset;
    auto lda = static_cast<int>(g.a_col);
    if (plan.gather_a) {
      float* gathered = context.Scratch(ScratchSlot::kSecond, plan.gathered_a_floats);
      GatherColumnMajor(a_matrix, g.a_row, g.a_col, g.m, g.k, gathered);
      a_matrix = gathered;
      lda = g.m;
    }
    float* result = c_matrix;
    auto ldc = static_cast<int>(g.c_col);
    if (plan.scatter_c) {
      result = context.Scratch(ScratchSlot::kThird, plan.scattered_c_floats);
      ldc = g.m;
    }
    PackedGemm(g.m, a_matrix, lda, PackedPanels(packed_b, g.k, g.n), result, ldc, context);
    if (plan.scatter_c) {
      for (int j = 0; j < g.n; ++j) {
        for (int i = 0; i < g.m; ++i) {
          c_matrix[i * g.c_row + j * g.c_col] = result[i + static_cast<size_t>(j) * g.m];
        }
      }
    }
  };
  const auto count = static_cast<std::ptrdiff_t>(plan.batch_count);
  if (plan.parallel_batches) {
    ParallelFor(
        context.pool, count, [&](std::ptrdiff_t index) { product(static_cast<size_t>(index)); },
        Schedule::kStatic);
  } else {
    for (std::ptrdiff_t index = 0; index < count; ++index) product(static_cast<size_t>(index));
  }
}

}  // namespace lumen
