// lumen.CenterPad by hand: ONNX's SAME pads for a strided window and cropping to given extents,
// the odd element at either end, and its errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/case_runner.hpp"
#include "support/hand_values.hpp"

namespace lumen {
namespace {

using test_support::Arange;
using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RowMajorOutput;
using ::testing::HasSubstr;

TEST(CenterPad, PadsForSameWindows) {
  // Extent 5, kernel 3, stride 2: ceil(5/2) = 3 windows need (3-1)*2+3 = 7, a total pad of 2.
  const Tensor x = Arange({1, 5});
  EXPECT_EQ(RowMajorOutput("lumen.CenterPad", {"kernel_size=(3)", "stride=(2)", "value=-1"}, {x}),
            std::vector<float>({-1, 0, 1, 2, 3, 4, -1}));
  // Extent 4, kernel 3, stride 2: 2 windows need 5, a total pad of 1 at the end or beginning.
  EXPECT_EQ(RowMajorOutput("lumen.CenterPad", {"kernel_size=(3)", "stride=(2)"}, {Arange({4})}),
            std::vector<float>({0, 1, 2, 3, 0}));
  EXPECT_EQ(RowMajorOutput("lumen.CenterPad", {"kernel_size=(3)", "stride=(2)", "upper=False"},
                           {Arange({4})}),
            std::vector<float>({0, 0, 1, 2, 3}));
  // Two axes, a dilated kernel: (2,3) with kernel (2,2), stride (2,1), dilation (1,2).
  EXPECT_EQ(InferShapes(MakeOperator("lumen.CenterPad",
                                     {"kernel_size=(2,2)", "stride=(2,1)", "dilation=(1,2)"}),
                        {{4, 2, 3}})[0],
            Shape({4, 2, 5}));
  EXPECT_EQ(
      RowMajorOutput("lumen.CenterPad", {"kernel_size=(2,2)", "stride=(2,1)", "dilation=(1,2)"},
                     {Arange({2, 3})}),
      std::vector<float>({0, 0, 1, 2, 0, 0, 3, 4, 5, 0}));
}

TEST(CenterPad, CropsAndPadsToSizes) {
  // 5 -> 2: three cut, one at the beginning with upper (the smaller half), two otherwise.
  EXPECT_EQ(RowMajorOutput("lumen.CenterPad", {"size=(2)"}, {Arange({5})}),
            std::vector<float>({1, 2}));
  EXPECT_EQ(RowMajorOutput("lumen.CenterPad", {"size=(2)", "upper=False"}, {Arange({5})}),
            std::vector<float>({2, 3}));
  EXPECT_EQ(RowMajorOutput("lumen.CenterPad", {"size=(3,1)"}, {Arange({2, 2})}),
            std::vector<float>({0, 2, 0}));
  // grow_at_end: a pad goes wholly at the end (ONNX ConvTranspose's output_shape past the full
  // output); a crop still splits.
  EXPECT_EQ(RowMajorOutput("lumen.CenterPad", {"size=(5)", "upper=False", "grow_at_end=True"},
                           {Arange({2})}),
            std::vector<float>({0, 1, 0, 0, 0}));
  EXPECT_EQ(RowMajorOutput("lumen.CenterPad", {"size=(2)", "upper=False", "grow_at_end=True"},
                           {Arange({5})}),
            std::vector<float>({2, 3}));
}

TEST(CenterPad, RefusesBadParameters) {
  EXPECT_THAT(LayerError(MakeOperator("lumen.CenterPad", {"size=(2,2)"}), {{3}}),
              HasSubstr("at least the 2 axes"));
  EXPECT_THAT(LayerError(MakeOperator("lumen.CenterPad", {"size=(-1)"}), {{3}}),
              HasSubstr("size must not be negative"));
  EXPECT_THAT(LayerError(MakeOperator("lumen.CenterPad", {"kernel_size=(3)", "stride=(0)"}), {{3}}),
              HasSubstr("at least 1"));
  EXPECT_THAT(
      LayerError(MakeOperator("lumen.CenterPad", {"kernel_size=(3,3)", "stride=(1)"}), {{3, 3}}),
      HasSubstr("the same length"));
}

}  // namespace
}  // namespace lumen
