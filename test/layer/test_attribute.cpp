// pnnx.Attribute produces its stored tensor, whatever the model's inputs.
//
// The cases run PNNX models written by scripts/make_layer_cases.py, whose expected outputs come
// from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RunLayer;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(PnnxAttribute, attribute_constant)

TEST(PnnxAttribute, OutputsTheStoredTensor) {
  const std::vector<float> values{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const Node op = MakeOperator("pnnx.Attribute", {}, {{"data", {{1, 3, 4}, values}}}, 0);
  EXPECT_EQ(InferShapes(op, {}), std::vector<Shape>({{1, 3, 4}}));
  const std::vector<Tensor> outputs = RunLayer(op, {}, 2);
  ASSERT_EQ(outputs[0].shape(), Shape({1, 3, 4}));
  EXPECT_EQ(outputs[0].ToRowMajor(), values);
}

TEST(PnnxAttribute, RejectsInputs) {
  const Node op = MakeOperator("pnnx.Attribute", {}, {{"data", {{1, 3, 4}, {}}}}, 0);
  EXPECT_THAT(LayerError(op, {{1, 3, 4}}), HasSubstr("expected 0 input(s), got 1"));
}

}  // namespace
}  // namespace lumen
