// nn.Softmax on logits whose exponentials overflow a float: PyTorch subtracts each slice's
// maximum first, so large logits give finite probabilities (course lesson 12).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/case_runner.hpp"
#include "support/kernel_testing.hpp"

namespace lumen {
namespace {

using test_support::ExpectClose;
using test_support::MakeOperator;
using test_support::RunLayer;

TEST(Softmax, StaysFiniteForLogitsWhoseExponentialsOverflow) {
  // torch.softmax(torch.tensor([[1000., 1001., 1002.], [-1000., -1001., -1002.]]), dim=1)
  //   = [[0.0900306, 0.2447285, 0.6652409], [0.6652409, 0.2447285, 0.0900306]]
  // (exp(1000) overflows a float and exp(-1000) underflows it: only the shifted form works).
  const std::vector<float> logits = {1000, 1001, 1002, -1000, -1001, -1002};
  const std::vector<float> expected = {0.0900306f, 0.2447285f, 0.6652409f,
                                       0.6652409f, 0.2447285f, 0.0900306f};
  for (int threads : {1, 2}) {
    const std::vector<Tensor> outputs = RunLayer(MakeOperator("nn.Softmax", {"dim=1"}),
                                                 {Tensor::FromRowMajor(logits, {2, 3})}, threads);
    ExpectClose(outputs[0].ToRowMajor(), expected, 1e-6f, 1e-5f, "large logits");
  }
}

}  // namespace
}  // namespace lumen
