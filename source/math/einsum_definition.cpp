#include "math/einsum_definition.hpp"

#include <array>

namespace lumen {

void RunEinsumByDefinition(const EinsumDefinition& plan, const std::vector<const float*>& operands,
                           float* result, ThreadPool* pool) {
  const size_t letters = plan.extents.size();
  const size_t free = plan.result_letters;
  size_t result_count = 1;
  for (size_t letter = 0; letter < free; ++letter) result_count *= plan.extents[letter];
  size_t summed_count = 1;
  for (size_t letter = free; letter < letters; ++letter) summed_count *= plan.extents[letter];
  ParallelFor(pool, static_cast<std::ptrdiff_t>(result_count), [&](std::ptrdiff_t element) {
    // The result letters' values, from the element's row-major index (last letter fastest).
    std::array<size_t, kMaxEinsumLetters> value{};
    size_t rest = static_cast<size_t>(element);
    for (size_t letter = free; letter-- > 0;) {
      value[letter] = rest % plan.extents[letter];
      rest /= plan.extents[letter];
    }
    float sum = 0.0f;
    for (size_t summed = 0; summed < summed_count; ++summed) {
      size_t left = summed;
      for (size_t letter = letters; letter-- > free;) {
        value[letter] = left % plan.extents[letter];
        left /= plan.extents[letter];
      }
      float product = 1.0f;
      for (size_t operand = 0; operand < operands.size(); ++operand) {
        std::ptrdiff_t offset = 0;
        for (size_t letter = 0; letter < letters; ++letter) {
          offset +=
              static_cast<std::ptrdiff_t>(value[letter]) * plan.operand_steps[operand][letter];
        }
        product *= operands[operand][offset];
      }
      sum += product;
    }
    std::ptrdiff_t offset = 0;
    for (size_t letter = 0; letter < free; ++letter) {
      offset += static_cast<std::ptrdiff_t>(value[letter]) * plan.result_steps[letter];
    }
    result[offset] = sum;
  });
}

}  // namespace lumen
