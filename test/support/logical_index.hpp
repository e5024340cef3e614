// Walking every logical index of a shape, for tests that check memory arithmetic one element at a
// time against Tensor::at.
#ifndef LUMEN_TEST_SUPPORT_LOGICAL_INDEX_HPP_
#define LUMEN_TEST_SUPPORT_LOGICAL_INDEX_HPP_

#include <vector>

#include "lumen/tensor.hpp"

namespace lumen {
namespace test_support {

// Calls visit(index) for every logical index of `shape`, in row-major order (the last dimension
// fastest), the order PyTorch would list the elements in.
template <typename Visit>
void ForEachLogicalIndex(const Shape& shape, Visit visit) {
  std::vector<uint32_t> index(shape.size(), 0);
  for (size_t count = ShapeElementCount(shape); count > 0; --count) {
    visit(index);
    for (size_t dim = shape.size(); dim-- > 0;) {
      if (++index[dim] < shape[dim]) break;
      index[dim] = 0;
    }
  }
}

}  // namespace test_support
}  // namespace lumen

#endif  // LUMEN_TEST_SUPPORT_LOGICAL_INDEX_HPP_
