// Batched matrix products over operands of any memory layout: torch.matmul, torch.bmm and
// torch.einsum all come down to C[i] = A[i] * B[i] for i over some batch dimensions, where each
// matrix is a strided view into a tensor (its rows and columns may be any two of the tensor's
// dimensions, transposed or not, and a batch dimension may be broadcast).
//
// Every product runs on the packed GEMM (packed_gemm.hpp). Its micro-kernel wants a column-major
// A and C; the plan below gets there without copies in the common layouts: C = A * B directly when
// C's rows are contiguous, C^T = B^T * A^T when its columns are, B packed from any layout, and A
// (or C) gathered into scratch only when neither orientation fits.
#ifndef LUMEN_MATH_BATCHED_GEMM_HPP_
#define LUMEN_MATH_BATCHED_GEMM_HPP_

#include <cstddef>
#include <vector>

#include "base/compute_context.hpp"
#include "base/workspace.hpp"

namespace lumen {

// One batch of products, described by memory strides (in floats) from each operand's start.
struct BatchedGemm {
  // C (m x n) = A (m x k) * B (k x n) for each batch index.
  int m = 1, n = 1, k = 1;
  // Element (i, j) of a matrix is at data[i * row + j * col].
  std::ptrdiff_t a_row = 1, a_col = 1;
  std::ptrdiff_t b_row = 1, b_col = 1;
  std::ptrdiff_t c_row = 1, c_col = 1;
  // The batch dimensions' extents, and each operand's step along them (0 where it is broadcast).
  std::vector<size_t> batch;
  std::vector<std::ptrdiff_t> a_batch, b_batch, c_batch;
};

// How RunBatchedGemm computes a BatchedGemm (made once per shape by PlanBatchedGemm).
struct BatchedGemmPlan {
  BatchedGemm gemm;               // the products, possibly transposed to C^T = B^T * A^T
  bool swap_operands = false;     // transposed: the first operand read is B, the second A
  size_t batch_count = 0;         // product of the batch extents
  bool gather_a = false;          // copy A into column-major scratch first
  bool scatter_c = false;         // compute C in scratch, then copy it out
  bool shared_b = false;          // every product uses the same B: pack it once
  bool parallel_batches = false;  // one product per task; else each product uses every thread
  size_t packed_b_floats = 0;     // ScratchSlot::kFirst
  size_t gathered_a_floats = 0;   // ScratchSlot::kSecond
  size_t scattered_c_floats = 0;  // ScratchSlot::kThird
};

// Chooses how to run `gemm` on `threads` threads.
BatchedGemmPlan PlanBatchedGemm(const BatchedGemm& gemm, int threads);

// Reserves every thread's scratch the plan's runs use, so that they do not allocate.
void ReserveBatchedGemm(const BatchedGemmPlan& plan, Workspace* workspace);

// Computes every product of the plan: a, b and c are the operands' first elements.
void RunBatchedGemm(const BatchedGemmPlan& plan, const float* a, const float* b, float* c,
                    const ComputeContext& context);

}  // namespace lumen

#endif  // LUMEN_MATH_BATCHED_GEMM_HPP_
