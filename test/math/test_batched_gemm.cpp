// BatchedGemm against a plain loop over the same strided memory: every operand layout (column-
// major, row-major, neither), so that every path of the plan runs (direct, transposed, A gathered,
// C scattered), with broadcast and shared operands, on 1 and 2 threads.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "math/batched_gemm.hpp"
#include "math/packed_gemm.hpp"
#include "support/case_runner.hpp"
#include "support/kernel_testing.hpp"

namespace lumen {
namespace {

using test_support::ExpectClose;
using test_support::RandomValues;
using test_support::TestContext;

// How one matrix operand lies in memory.
enum class Layout { kColumnMajor, kRowMajor, kSpread };

// Strides (row, column) of an r x c matrix in `layout`, with a little padding so that a routine
// mixing up a stride with a size reads the wrong numbers.
std::pair<std::ptrdiff_t, std::ptrdiff_t> Strides(Layout layout, int r, int c) {
  switch (layout) {
    case Layout::kColumnMajor:
      return {1, r + 3};
    case Layout::kRowMajor:
      return {c + 2, 1};
    default:  // neither direction contiguous
      return {2, 2 * r + 5};
  }
}

// Floats an operand spans: its last element plus one, over the batch too.
size_t Span(std::ptrdiff_t row, std::ptrdiff_t col, int r, int c, std::ptrdiff_t batch_step,
            size_t batches) {
  return static_cast<size_t>((r - 1) * row + (c - 1) * col + 1 + batch_step * (batches - 1));
}

struct Case {
  int m, n, k;
  Layout a, b, c;
  bool shared_b;  // one B for every product
};

void ExpectBatchedGemmMatches(const Case& test, int threads) {
  SCOPED_TRACE("m" + std::to_string(test.m) + " n" + std::to_string(test.n) + " k" +
               std::to_string(test.k) + " layouts " + std::to_string(static_cast<int>(test.a)) +
               std::to_string(static_cast<int>(test.b)) + std::to_string(static_cast<int>(test.c)) +
               (test.shared_b ? " shared B" : "") + " threads " + std::to_string(threads));
  BatchedGemm gemm;
  gemm.m = test.m;
  gemm.n = test.n;
  gemm.k = test.k;
  std::tie(gemm.a_row, gemm.a_col) = Strides(test.a, test.m, test.k);
  std::tie(gemm.b_row, gemm.b_col) = Strides(test.b, test.k, test.n);
  std::tie(gemm.c_row, gemm.c_col) = Strides(test.c, test.m, test.n);
  const size_t a_matrix = Span(gemm.a_row, gemm.a_col, test.m, test.k, 0, 1);
  const size_t b_matrix = Span(gemm.b_row, gemm.b_col, test.k, test.n, 0, 1);
  const size_t c_matrix = Span(gemm.c_row, gemm.c_col, test.m, test.n, 0, 1);
  // Batch (2, 3): A broadcast along the first dimension, B along the second (or entirely).
  gemm.batch = {2, 3};
  gemm.a_batch = {0, static_cast<std::ptrdiff_t>(a_matrix)};
  gemm.b_batch = test.shared_b
                     ? std::vector<std::ptrdiff_t>{0, 0}
                     : std::vector<std::ptrdiff_t>{static_cast<std::ptrdiff_t>(b_matrix), 0};
  gemm.c_batch = {static_cast<std::ptrdiff_t>(3 * c_matrix), static_cast<std::ptrdiff_t>(c_matrix)};
  std::mt19937 generator(7);
  const std::vector<float> a = RandomValues(3 * a_matrix, &generator);
  const std::vector<float> b = RandomValues(2 * b_matrix, &generator);
  std::vector<float> c(6 * c_matrix, -7.0f);  // gaps between elements must stay untouched
  std::vector<float> reference = c;
  for (int i0 = 0; i0 < 2; ++i0) {
    for (int i1 = 0; i1 < 3; ++i1) {
      const float* a_batch = a.data() + i0 * gemm.a_batch[0] + i1 * gemm.a_batch[1];
      const float* b_batch = b.data() + i0 * gemm.b_batch[0] + i1 * gemm.b_batch[1];
      float* c_batch = reference.data() + i0 * gemm.c_batch[0] + i1 * gemm.c_batch[1];
      for (int i = 0; i < test.m; ++i) {
        for (int j = 0; j < test.n; ++j) {
          float sum = 0.0f;
          for (int p = 0; p < test.k; ++p) {
            sum +=
                a_batch[i * gemm.a_row + p * gemm.a_col] * b_batch[p * gemm.b_row + j * gemm.b_col];
          }
          c_batch[i * gemm.c_row + j * gemm.c_col] = sum;
        }
      }
    }
  }
  TestContext context(threads);
  const BatchedGemmPlan plan = PlanBatchedGemm(gemm, threads);
  ReserveBatchedGemm(plan, context.prepare().workspace);
  RunBatchedGemm(plan, a.data(), b.data(), c.data(), context.compute());
  ExpectClose(c, reference, 1e-4f, 1e-4f, "C");
}

TEST(BatchedGemm, MatchesPlainLoopsForEveryLayout) {
  const Layout layouts[] = {Layout::kColumnMajor, Layout::kRowMajor, Layout::kSpread};
  const int sizes[][3] = {
      {kPanelRows + 3, kPanelColumns + 2, 37}, {5, 1, 9}, {1, 6, 300}, {70, 20, 260}};
  for (const auto& size : sizes) {
    for (Layout a : layouts) {
      for (Layout b : layouts) {
        for (Layout c : layouts) {
          for (bool shared : {false, true}) {
            for (int threads : {1, 2}) {
              ExpectBatchedGemmMatches({size[0], size[1], size[2], a, b, c, shared}, threads);
            }
          }
        }
      }
    }
  }
}

TEST(BatchedGemm, EmptySharedDimensionWritesZeros) {
  BatchedGemm gemm;
  gemm.m = 2;
  gemm.n = 3;
  gemm.k = 0;
  gemm.c_row = 1;
  gemm.c_col = 2;
  std::vector<float> c(6, 5.0f);
  TestContext context(1);
  const BatchedGemmPlan plan = PlanBatchedGemm(gemm, 1);
  RunBatchedGemm(plan, nullptr, nullptr, c.data(), context.compute());
  EXPECT_EQ(c, std::vector<float>(6, 0.0f));
}

TEST(BatchedGemm, PlanReadsOperandsInPlaceWhenTheirLayoutAllows) {
  BatchedGemm gemm;
  gemm.m = 8;
  gemm.n = 9;
  gemm.k = 10;
  gemm.a_row = 1, gemm.a_col = 8;  // column-major A
  gemm.b_row = 9, gemm.b_col = 1;  // row-major B
  gemm.c_row = 1, gemm.c_col = 8;  // column-major C: C = A * B as is
  BatchedGemmPlan plan = PlanBatchedGemm(gemm, 1);
  EXPECT_FALSE(plan.swap_operands || plan.gather_a || plan.scatter_c);
  gemm.a_row = 10, gemm.a_col = 1;  // row-major A and
  gemm.c_row = 9, gemm.c_col = 1;   // row-major C: C^T = B^T A^T, in place
  plan = PlanBatchedGemm(gemm, 1);
  EXPECT_TRUE(plan.swap_operands);
  EXPECT_FALSE(plan.gather_a || plan.scatter_c);
  gemm.b_row = 1, gemm.b_col = 10;  // a column-major B as well: one of A or B must be gathered
  plan = PlanBatchedGemm(gemm, 1);
  EXPECT_TRUE(plan.gather_a);
  EXPECT_FALSE(plan.scatter_c);
}

}  // namespace
}  // namespace lumen
