// nn.RReLU in evaluation mode against PyTorch (slope (lower + upper) / 2); training mode, whose
// slopes are random, is refused.
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

LUMEN_LAYER_CASE_TEST(Rrelu, rrelu_defaults)

TEST(Rrelu, RefusesTrainingMode) {
  EXPECT_THAT(LayerError(MakeOperator("F.rrelu", {"training=True"}), {{2, 3}}),
              HasSubstr("F.rrelu 'op': training=True draws a random slope"));
  EXPECT_EQ(LayerError(MakeOperator("F.rrelu", {"training=False"}), {{2, 3}}), "");
}

}  // namespace
}  // namespace lumen
