// nn.ReLU and F.relu against PyTorch.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::LayerError;
using test_support::MakeOperator;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Relu, relu_functional)
LUMEN_LAYER_CASE_TEST(Relu, relu_module)

TEST(Relu, IsRegisteredUnderItsFunctionalNames) {
  for (const char* type : {"nn.ReLU", "F.relu", "torch.relu"}) {
    EXPECT_EQ(LayerError(MakeOperator(type, {}), {{1, 2, 3}}, {{1, 2, 3}}), "") << type;
  }
  EXPECT_THAT(LayerError(MakeOperator("nn.ReLU", {}, {}, 2), {{1, 2, 3}, {1, 2, 3}}),
              HasSubstr("expected 1 input(s), got 2"));
}

}  // namespace
}  // namespace lumen
