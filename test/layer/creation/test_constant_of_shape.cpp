// lumen.ConstantOfShape (ONNX's ConstantOfShape): the shape its input's values hold, every element
// its value, and a bad extent refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "support/case_runner.hpp"

namespace lumen {
namespace {

using test_support::MakeOperator;
using test_support::RunLayer;
using ::testing::HasSubstr;

// lumen.ConstantOfShape (onnx.backend.test.case.node.constantofshape): input 1's values are the
// shape, `value` every element.
TEST(ConstantOfShape, FillsTheShapeItsInputHolds) {
  const std::vector<Tensor> outputs = RunLayer(MakeOperator("lumen.ConstantOfShape", {"value=2.5"}),
                                               {Tensor::FromRowMajor({2, 3}, {2})});
  EXPECT_EQ(outputs[0].shape(), Shape({2, 3}));
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>(6, 2.5f));
  EXPECT_EQ(RunLayer(MakeOperator("lumen.ConstantOfShape", {}), {Tensor(Shape{0})})[0].shape(),
            Shape({}));
  EXPECT_THAT(test_support::RunLayerError(MakeOperator("lumen.ConstantOfShape", {}),
                                          {Tensor::FromRowMajor({2, -3}, {2})}),
              HasSubstr("the shape has an extent -3"));
}

}  // namespace
}  // namespace lumen
