// Helpers for layer tests whose expected values are worked out by hand: a tensor holding
// 0, 1, 2, ... (PyTorch's torch.arange(n).reshape(shape)), and one layer's output as row-major
// values, to compare with PyTorch's printed result.
#ifndef LUMEN_TEST_SUPPORT_HAND_VALUES_HPP_
#define LUMEN_TEST_SUPPORT_HAND_VALUES_HPP_

#include <string>
#include <vector>

#include "lumen/tensor.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace test_support {

// torch.arange(count).reshape(shape) as floats.
inline Tensor Arange(const Shape& shape) {
  std::vector<float> values(ShapeElementCount(shape));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  return Tensor::FromRowMajor(values, shape);
}

// The row-major values of the first output of `type` with `params` on `inputs` (the operator
// has `outputs` outputs).
inline std::vector<float> RowMajorOutput(const std::string& type,
                                         const std::vector<std::string>& params,
                                         const std::vector<Tensor>& inputs, int outputs = 1) {
  return RunLayer(MakeOperator(type, params, {}, static_cast<int>(inputs.size()), outputs),
                  inputs)[0]
      .ToRowMajor();
}

}  // namespace test_support
}  // namespace lumen

#endif  // LUMEN_TEST_SUPPORT_HAND_VALUES_HPP_
