// torch.einsum by its definition: for each element of the result, the sum over every value of the
// summed letters of the product of the operands' elements those letters pick. Any number of
// operands, any letters summed, diagonals (a letter twice in one operand): the general case the
// batched-GEMM path of layer/linear/einsum.cpp does not cover.
#ifndef LUMEN_MATH_EINSUM_DEFINITION_HPP_
#define LUMEN_MATH_EINSUM_DEFINITION_HPP_

#include <cstddef>
#include <vector>

#include "base/thread_pool.hpp"

namespace lumen {

// At most this many distinct letters: a-z and A-Z.
inline constexpr size_t kMaxEinsumLetters = 52;

// The letters, result letters first (in the result's order), then the summed ones: each letter's
// extent and its step in storage, per operand and in the result (0 where a term lacks it; the sum
// of both steps where an operand has it twice, which walks the diagonal).
struct EinsumDefinition {
  size_t result_letters = 0;
  std::vector<size_t> extents;
  std::vector<std::vector<std::ptrdiff_t>> operand_steps;
  std::vector<std::ptrdiff_t> result_steps;
};

// Writes every element of the result (float sums, in the summed letters' order). Spreads the
// result's elements over `pool` (may be null).
void RunEinsumByDefinition(const EinsumDefinition& plan, const std::vector<const float*>& operands,
                           float* result, ThreadPool* pool);

}  // namespace lumen

#endif  // LUMEN_MATH_EINSUM_DEFINITION_HPP_
