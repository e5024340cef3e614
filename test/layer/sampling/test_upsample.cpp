// nn.Upsample / F.upsample / F.interpolate against PyTorch: nearest and bilinear, scale or size,
// align_corners, batches, fractional scales; output sizes computed from other input sizes; errors.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "layer/layer_registry.hpp"
#include "support/case_runner.hpp"
#include "support/kernel_testing.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RandomValues;
using test_support::RunLayer;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(Upsample, interpolate_bilinear_scale)
LUMEN_LAYER_CASE_TEST(Upsample, interpolate_nearest_scale_0p7)
LUMEN_LAYER_CASE_TEST(Upsample, interpolate_recompute)
LUMEN_LAYER_CASE_TEST(Upsample, upsample_bilinear_downscale)
LUMEN_LAYER_CASE_TEST(Upsample, upsample_bilinear_scale_0p7)
LUMEN_LAYER_CASE_TEST(Upsample, upsample_bilinear_scale_corners)
LUMEN_LAYER_CASE_TEST(Upsample, upsample_bilinear_size)
LUMEN_LAYER_CASE_TEST(Upsample, upsample_bilinear_size_corners)
LUMEN_LAYER_CASE_TEST(Upsample, upsample_nearest_fraction)
LUMEN_LAYER_CASE_TEST(Upsample, upsample_nearest_scale2_batch2)
LUMEN_LAYER_CASE_TEST(Upsample, upsample_nearest_scale3)
LUMEN_LAYER_CASE_TEST(Upsample, upsample_nearest_size)
// F.upsample_nearest, pnnx's spelling of interpolate(mode='nearest').
LUMEN_LAYER_CASE_TEST(Upsample, upsample_nearest_fn_size)
LUMEN_LAYER_CASE_TEST(Upsample, upsample_nearest_fn_scale3)

TEST(Upsample, RegistersEverySpelling) {
  for (const char* type : {"nn.Upsample", "F.upsample", "F.interpolate", "F.upsample_nearest"}) {
    EXPECT_TRUE(LayerRegistry::Has(type)) << type;
  }
}

// With a scale factor the output size follows the input given (YOLOv5's nn.Upsample(None, 2) on
// any image size); with a size it does not.
TEST(Upsample, ComputesTheOutputSizeFromTheInput) {
  const Node twice = MakeOperator("nn.Upsample", {"mode=nearest", "scale_factor=(2.0,2.0)"});
  EXPECT_EQ(InferShapes(twice, {{1, 256, 10, 10}}), std::vector<Shape>({{1, 256, 20, 20}}));
  EXPECT_EQ(InferShapes(twice, {{3, 256, 12, 20}}), std::vector<Shape>({{3, 256, 24, 40}}));
  // floor(10 * 0.7) = 7 in double (PyTorch), 6 in float.
  const Node fraction =
      MakeOperator("F.interpolate", {"mode=bilinear", "scale_factor=0.7", "align_corners=False"});
  EXPECT_EQ(InferShapes(fraction, {{1, 2, 10, 20}}), std::vector<Shape>({{1, 2, 7, 14}}));
  const Node sized = MakeOperator("nn.Upsample", {"mode=bilinear", "size=(7,9)"});
  EXPECT_EQ(InferShapes(sized, {{2, 5, 30, 3}}), std::vector<Shape>({{2, 5, 7, 9}}));
}

// Doubling with nearest repeats every pixel in a 2x2 block, in every plane of a batch, on threads.
TEST(Upsample, NearestDoublingRepeatsEveryPixel) {
  const Shape shape{2, 3, 31, 29};
  std::mt19937 generator(71);
  const std::vector<float> values = RandomValues(ShapeElementCount(shape), &generator);
  const std::vector<Tensor> outputs =
      RunLayer(MakeOperator("nn.Upsample", {"mode=nearest", "scale_factor=(2.0,2.0)"}),
               {Tensor::FromRowMajor(values, shape)}, 3);
  ASSERT_EQ(outputs[0].shape(), Shape({2, 3, 62, 58}));
  const std::vector<float> result = outputs[0].ToRowMajor();
  for (size_t plane = 0; plane < 6; ++plane) {
    for (size_t y = 0; y < 62; ++y) {
      for (size_t x = 0; x < 58; ++x) {
        ASSERT_EQ(result[(plane * 62 + y) * 58 + x], values[(plane * 31 + y / 2) * 29 + x / 2])
            << "plane " << plane << " y " << y << " x " << x;
      }
    }
  }
}

// Nearest on a 3-D map to sizes that neither double nor divide: each output reads source
// floor(o * in / out) along each axis (PyTorch's nearest_idx; the sizes keep o * in / out away
// from integers where float rounding could tip it), and copies it: -0.0 stays -0.0.
TEST(Upsample, NearestCopiesTheSourceVoxelOfEveryAxis) {
  const Shape shape{1, 2, 3, 4, 5};
  std::vector<float> values(ShapeElementCount(shape));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) + 0.25f;
  values[6] = -0.0f;  // depth 0, row 1, column 1: read by outputs (0, 2..3, 1)
  const std::vector<Tensor> outputs =
      RunLayer(MakeOperator("nn.Upsample", {"mode=nearest", "size=(4,8,3)"}),
               {Tensor::FromRowMajor(values, shape)}, 2);
  ASSERT_EQ(outputs[0].shape(), Shape({1, 2, 4, 8, 3}));
  const std::vector<float> result = outputs[0].ToRowMajor();
  const size_t depth_sources[] = {0, 0, 1, 2};            // 3 -> 4
  const size_t row_sources[] = {0, 0, 1, 1, 2, 2, 3, 3};  // 4 -> 8
  const size_t column_sources[] = {0, 1, 3};              // 5 -> 3
  for (size_t channel = 0; channel < 2; ++channel) {
    for (size_t d = 0; d < 4; ++d) {
      for (size_t y = 0; y < 8; ++y) {
        for (size_t x = 0; x < 3; ++x) {
          const float expected =
              values[((channel * 3 + depth_sources[d]) * 4 + row_sources[y]) * 5 +
                     column_sources[x]];
          const float got = result[((channel * 4 + d) * 8 + y) * 3 + x];
          ASSERT_EQ(got, expected)
              << "channel " << channel << " d " << d << " y " << y << " x " << x;
          ASSERT_EQ(std::signbit(got), std::signbit(expected)) << "d " << d << " y " << y;
        }
      }
    }
  }
}

TEST(Upsample, RejectsUnknownModesAndMismatchedAxes) {
  EXPECT_THAT(LayerError(MakeOperator("nn.Upsample", {"mode=area", "scale_factor=(2.0,2.0)"}),
                         {{1, 2, 3, 3}}),
              HasSubstr("mode 'area' is not supported"));
  EXPECT_THAT(LayerError(MakeOperator("F.interpolate",
                                      {"mode=bilinear", "scale_factor=0.5", "antialias=True"}),
                         {{1, 2, 4, 4}}),
              HasSubstr("antialias=True is not supported"));
  EXPECT_THAT(LayerError(MakeOperator("nn.Upsample", {"mode=trilinear", "scale_factor=(2.0,2.0)"}),
                         {{1, 2, 3, 3}}),
              HasSubstr("mode 'trilinear' resizes 3 axes, but 2 sizes or scale factors are given"));
  EXPECT_THAT(LayerError(MakeOperator("nn.Upsample", {"mode=bilinear", "scale_factor=2.0"}),
                         {{1, 2, 3, 3, 3}}),
              HasSubstr("expected an (N,C,H,W) input"));
}

// F.interpolate(torch.tensor([[[1., 2., 4.]]]), size=5, mode="linear", align_corners=True) is
// [1, 1.5, 2, 3, 4]; nearest-exact of the same to size 2 reads positions 0 and 2 ((i + 0.5) * 1.5).
TEST(Upsample, ResizesOneDimensionalSignals) {
  std::vector<Tensor> outputs =
      RunLayer(MakeOperator("F.interpolate", {"mode=linear", "size=5", "align_corners=True"}),
               {Tensor::FromRowMajor({1, 2, 4}, {1, 1, 3})});
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({1, 1.5f, 2, 3, 4}));
  outputs = RunLayer(MakeOperator("F.interpolate", {"mode=nearest-exact", "size=(2)"}),
                     {Tensor::FromRowMajor({1, 2, 4, 5, 6, 7}, {1, 2, 3})});
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({1, 4, 5, 7}));
}

// PyTorch's weights where float arithmetic rounds: for 13 -> 26 with align_corners, output 25
// sits at (12/25) * 25, which in float is 11.9999997; torch 1.13 gives
// F.interpolate(one_hot(k, 13).view(1, 1, 13), size=26, mode="linear", align_corners=True)[..., 25]
// = 2.3841858e-07 for k = 11 and 0.99999976 for k = 12 (a float coordinate would round to 12 and
// give 0 and 1), and 0.43999997 for k = 2 at output 3.
TEST(Upsample, LinearWeightsRoundAsPyTorchsDo) {
  const Node op = MakeOperator("F.interpolate", {"mode=linear", "size=26", "align_corners=True"});
  const auto weight = [&](int k, size_t output) {
    std::vector<float> one_hot(13, 0.0f);
    one_hot[static_cast<size_t>(k)] = 1.0f;
    return RunLayer(op, {Tensor::FromRowMajor(one_hot, {1, 1, 13})})[0].ToRowMajor()[output];
  };
  EXPECT_EQ(weight(11, 25), 2.3841858e-07f);
  EXPECT_EQ(weight(12, 25), 0.99999976f);
  EXPECT_EQ(weight(2, 3), 0.43999997f);
}

TEST(Upsample, RejectsBothSizeAndScale) {
  EXPECT_THAT(LayerError(MakeOperator("nn.Upsample",
                                      {"mode=nearest", "scale_factor=(2.0,2.0)", "size=(6,6)"}),
                         {{1, 2, 3, 3}}),
              HasSubstr("exactly one of size and scale_factor must be given"));
}

TEST(Upsample, RejectsInputsAndScalesItCannotResize) {
  const Node op = MakeOperator("nn.Upsample", {"mode=nearest", "scale_factor=(2.0,2.0)"});
  EXPECT_THAT(LayerError(op, {{2, 3, 3}}),
              HasSubstr("expected an (N,C,H,W) input with non-empty spatial axes, got (2,3,3)"));
  EXPECT_THAT(LayerError(MakeOperator("nn.Upsample", {"mode=nearest", "scale_factor=(0.1,0.1)"}),
                         {{1, 2, 3, 3}}),
              HasSubstr("input (1,2,3,3) resizes to (1,2,0,0), which is empty"));
  EXPECT_THAT(LayerError(MakeOperator("nn.Upsample", {"mode=nearest", "scale_factor=(-2.0,2.0)"}),
                         {{1, 2, 3, 3}}),
              HasSubstr("scale_factor must be positive"));
  EXPECT_THAT(LayerError(MakeOperator("nn.Upsample", {"mode=nearest", "scale_factor=(1e30,1e30)"}),
                         {{1, 2, 3, 3}}),
              HasSubstr("too large"));
}

// lumen.Resize: ONNX's Resize to sizes computed at run time (F.interpolate(size=x.shape[-2:])),
// the whole output shape in input 1; it resizes as F.interpolate(size=...) does.
TEST(Upsample, ResizesToTheSizesInput1Holds) {
  std::mt19937 generator(7);
  const Tensor input = Tensor::FromRowMajor(RandomValues(2 * 3 * 4 * 5, &generator), {2, 3, 4, 5});
  const Tensor sizes = Tensor::FromRowMajor({2, 3, 7, 9}, {4});
  const Tensor by_operand =
      RunLayer(MakeOperator("lumen.Resize", {"mode=bilinear", "align_corners=False"}, {}, 2),
               {input, sizes})[0];
  const Tensor by_parameter = RunLayer(
      MakeOperator("F.interpolate", {"mode=bilinear", "align_corners=False", "size=(7,9)"}),
      {input})[0];
  EXPECT_EQ(by_operand.shape(), Shape({2, 3, 7, 9}));
  EXPECT_EQ(by_operand.ToRowMajor(), by_parameter.ToRowMajor());
  EXPECT_THAT(test_support::RunLayerError(MakeOperator("lumen.Resize", {"mode=nearest"}, {}, 2),
                                          {input, Tensor::FromRowMajor({2, 4, 7, 9}, {4})}),
              HasSubstr("only the spatial axes can change"));
}

}  // namespace
}  // namespace lumen
