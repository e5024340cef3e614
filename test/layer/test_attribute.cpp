// pnnx.Attribute produces its stored tensor.
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

LUMEN_LAYER_CASE_TEST(Attribute, attribute_constant)

TEST(Attribute, RejectsAnOutputOfAnotherShape) {
  const RuntimeOperator op = MakeOperator("pnnx.Attribute", {}, {{"data", {{1, 3, 4}, {}}}});
  EXPECT_THAT(LayerError(op, {}, {{1, 4, 3}}),
              HasSubstr("the constant has shape (1,3,4) but the graph says (1,4,3)"));
}

}  // namespace
}  // namespace lumen
