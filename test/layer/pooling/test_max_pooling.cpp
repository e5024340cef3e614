// nn.MaxPool2d against PyTorch (ceil_mode, padding, dilation, NaN, batches, the unbatched form),
// shape inference at other sizes, hostile windows, and its errors.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <string>
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

LUMEN_LAYER_CASE_TEST(MaxPooling, maxpool_batch2_ceil)
LUMEN_LAYER_CASE_TEST(MaxPooling, maxpool_ceil_odd)
LUMEN_LAYER_CASE_TEST(MaxPooling, maxpool_dilation2)
LUMEN_LAYER_CASE_TEST(MaxPooling, maxpool_functional_default_stride)
LUMEN_LAYER_CASE_TEST(MaxPooling, maxpool_k5_s1_p2)
LUMEN_LAYER_CASE_TEST(MaxPooling, maxpool_nan)
LUMEN_LAYER_CASE_TEST(MaxPooling, maxpool_padding)
LUMEN_LAYER_CASE_TEST(MaxPooling, maxpool_unbatched)
// nn.MaxPool1d / F.max_pool1d, and the golden case maxpool1d_k3_s2_p1 in tmp/models.
LUMEN_LAYER_CASE_TEST(MaxPooling, maxpool1d_dilation2_ceil)
LUMEN_LAYER_CASE_TEST(MaxPooling, maxpool1d_unbatched)
LUMEN_LAYER_CASE_TEST(MaxPooling, maxpool1d_functional_default_stride)
LUMEN_LAYER_CASE_TEST(MaxPooling, maxpool1d_nan)

TEST(MaxPooling, RegistersEverySpelling) {
  for (const char* type : {"nn.MaxPool2d", "F.max_pool2d", "nn.MaxPool1d", "F.max_pool1d"}) {
    EXPECT_TRUE(LayerRegistry::Has(type)) << type;
  }
}

// F.max_pool1d(torch.tensor([[[1., 5., 2., 8., 3.]]]), 2, 2, 1) is [[[1., 5., 8.]]].
TEST(MaxPooling, PoolsOneDimensionalSignalsByHand) {
  const std::vector<Tensor> outputs = RunLayer(
      MakeOperator("F.max_pool1d", {"kernel_size=(2)", "stride=(2)", "padding=(1)", "dilation=(1)",
                                    "ceil_mode=False", "return_indices=False"}),
      {Tensor::FromRowMajor({1, 5, 2, 8, 3}, {1, 1, 5})});
  EXPECT_EQ(outputs[0].shape(), Shape({1, 1, 3}));
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({1, 5, 8}));
  EXPECT_THAT(LayerError(MakeOperator("nn.MaxPool1d", {"kernel_size=(2)"}), {{1, 2, 3, 4}}),
              HasSubstr("expected a (C,L) or (N,C,L) input"));
}

// A square window written as pnnx writes nn.MaxPool2d.
Node MaxPool(int kernel, int stride, int padding, int dilation, bool ceil_mode) {
  const auto pair = [](int value) {
    return "(" + std::to_string(value) + "," + std::to_string(value) + ")";
  };
  return MakeOperator("nn.MaxPool2d", {"kernel_size=" + pair(kernel), "stride=" + pair(stride),
                                       "padding=" + pair(padding), "dilation=" + pair(dilation),
                                       std::string("ceil_mode=") + (ceil_mode ? "True" : "False"),
                                       "return_indices=False"});
}

// The definition, on row-major (planes, H, W) values: the maximum over each window's taps inside
// the input. Sizes are the ones the layer inferred.
std::vector<float> ReferenceMaxPool(const std::vector<float>& input, size_t planes, int height,
                                    int width, int output_h, int output_w, int kernel, int stride,
                                    int padding, int dilation) {
  std::vector<float> output;
  for (size_t plane = 0; plane < planes; ++plane) {
    for (int oy = 0; oy < output_h; ++oy) {
      for (int ox = 0; ox < output_w; ++ox) {
        float maximum = -std::numeric_limits<float>::infinity();
        for (int ky = 0; ky < kernel; ++ky) {
          for (int kx = 0; kx < kernel; ++kx) {
            const int y = oy * stride - padding + ky * dilation;
            const int x = ox * stride - padding + kx * dilation;
            if (y < 0 || y >= height || x < 0 || x >= width) continue;
            maximum = std::max(maximum, input[(plane * height + y) * width + x]);
          }
        }
        output.push_back(maximum);
      }
    }
  }
  return output;
}

TEST(MaxPooling, InfersTheOutputForAnyInputSize) {
  EXPECT_EQ(InferShapes(MaxPool(3, 2, 1, 1, false), {{4, 64, 112, 112}}),
            std::vector<Shape>({{4, 64, 56, 56}}));
  EXPECT_EQ(InferShapes(MaxPool(3, 2, 1, 1, false), {{1, 64, 80, 45}}),
            std::vector<Shape>({{1, 64, 40, 23}}));
  EXPECT_EQ(InferShapes(MaxPool(2, 2, 0, 1, true), {{2, 3, 5, 7}}),
            std::vector<Shape>({{2, 3, 3, 4}}));
  EXPECT_EQ(InferShapes(MaxPool(3, 1, 0, 2, false), {{3, 11, 10}}),
            std::vector<Shape>({{3, 7, 6}}));  // unbatched (C,H,W)
}

// Batches, sizes and windows the corpus lacks, on 1 and 3 threads, against the definition.
TEST(MaxPooling, MatchesTheDefinitionOnBatchesAndThreads) {
  struct Geometry {
    Shape input;
    int kernel, stride, padding, dilation;
    bool ceil_mode;
  };
  const std::vector<Geometry> geometries = {{{3, 5, 17, 13}, 3, 2, 1, 1, false},
                                            {{2, 4, 20, 19}, 2, 2, 0, 1, true},
                                            {{2, 3, 16, 15}, 3, 1, 1, 2, false},
                                            {{5, 9, 11}, 5, 3, 2, 1, true},
                                            {{1, 64, 24, 24}, 3, 2, 1, 1, false}};
  std::mt19937 generator(17);
  for (const Geometry& g : geometries) {
    const Node op = MaxPool(g.kernel, g.stride, g.padding, g.dilation, g.ceil_mode);
    const std::vector<float> values = RandomValues(ShapeElementCount(g.input), &generator);
    const Tensor input = Tensor::FromRowMajor(values, g.input);
    const Shape output_shape = InferShapes(op, {g.input})[0];
    const size_t rank = g.input.size();
    const int height = static_cast<int>(g.input[rank - 2]);
    const int width = static_cast<int>(g.input[rank - 1]);
    const std::vector<float> expected = ReferenceMaxPool(
        values, ShapeElementCount(g.input) / (height * width), height, width,
        static_cast<int>(output_shape[rank - 2]), static_cast<int>(output_shape[rank - 1]),
        g.kernel, g.stride, g.padding, g.dilation);
    for (int threads : {1, 3}) {
      const std::vector<Tensor> outputs = RunLayer(op, {input}, threads);
      ASSERT_EQ(outputs[0].shape(), output_shape);
      EXPECT_EQ(outputs[0].ToRowMajor(), expected)
          << ShapeToString(g.input) << " kernel " << g.kernel << " on " << threads << " threads";
    }
  }
}

// Issue 9: a kernel of 2^30 with dilation 4 spans 2^32 input rows. Computed in ints, that size
// wrapped around into a plausible output and the layer ran for 70 s; it must be refused at shape
// inference, before anything runs.
TEST(MaxPooling, RefusesAHostileWindowAtShapeInference) {
  const Node op = MakeOperator(
      "nn.MaxPool2d", {"kernel_size=(1073741824,1073741824)", "stride=(1,1)", "dilation=(4,4)"});
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THAT(LayerError(op, {{1, 1, 8, 8}}),
              HasSubstr("input (1,1,8,8) is too small for the window: the output would be "
                        "(1,1,0,0)"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

// A window PyTorch accepts (padding half the kernel) but far larger than the input: one output
// per plane, the plane's maximum, computed from the input's taps only.
TEST(MaxPooling, RunsAHugePaddedWindowInTimeBoundedByTheInput) {
  const Node op = MakeOperator(
      "nn.MaxPool2d", {"kernel_size=(1073741824,1073741824)", "stride=(1073741824,1073741824)",
                       "padding=(536870912,536870912)"});
  std::vector<float> values(2 * 25);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 25) - 10.0f;
  values[25 + 7] = 40.0f;
  const std::vector<Tensor> outputs = RunLayer(op, {Tensor::FromRowMajor(values, {1, 2, 5, 5})}, 2);
  ASSERT_EQ(outputs[0].shape(), Shape({1, 2, 1, 1}));
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({14.0f, 40.0f}));
}

// torch.nn.MaxPool2d(2, return_indices=True) on a 2x4 plane: the maxima 6 (position 5) and 7
// (position 3); the 1-D form counts positions along L, the 3-D one over (D, H, W).
TEST(MaxPooling, ReturnsPyTorchsIndices) {
  std::vector<Tensor> outputs = RunLayer(
      MakeOperator("nn.MaxPool2d", {"kernel_size=(2,2)", "stride=(2,2)", "return_indices=True"}),
      {Tensor::FromRowMajor({1, 2, 0, 7, 4, 6, 3, 1}, {1, 2, 4})});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({6, 7}));
  EXPECT_EQ(outputs[1].ToRowMajor(), std::vector<float>({5, 3}));
  outputs = RunLayer(MakeOperator("F.max_pool1d", {"kernel_size=2", "return_indices=True"}),
                     {Tensor::FromRowMajor({1, 2, 0, 7, 4, 6, 3, 1}, {2, 4})});
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({2, 7, 6, 3}));
  EXPECT_EQ(outputs[1].ToRowMajor(), std::vector<float>({1, 3, 1, 2}));
  outputs = RunLayer(MakeOperator("nn.MaxPool3d", {"kernel_size=2", "return_indices=True"}),
                     {Tensor::FromRowMajor({1, 2, 0, 7, 4, 6, 3, 1}, {1, 2, 2, 2})});
  EXPECT_EQ(outputs[0].ToRowMajor(), std::vector<float>({7}));
  EXPECT_EQ(outputs[1].ToRowMajor(), std::vector<float>({3}));
}

TEST(MaxPooling, RejectsBadThreeDimensionalWindows) {
  EXPECT_THAT(LayerError(MakeOperator("nn.MaxPool3d", {"kernel_size=(2,2)"}), {{1, 2, 4, 4, 4}}),
              HasSubstr("'kernel_size' must be 3 ints, got '(2,2)'"));
  EXPECT_THAT(LayerError(MakeOperator("nn.MaxPool3d", {"kernel_size=2", "padding=(2,0,0)"}),
                         {{1, 2, 4, 4, 4}}),
              HasSubstr("padding must be at most half the kernel size"));
  EXPECT_THAT(LayerError(MakeOperator("nn.MaxPool3d", {"kernel_size=2"}), {{2, 4, 4}}),
              HasSubstr("expected a (C,D,H,W) or (N,C,D,H,W) input"));
}

TEST(MaxPooling, RejectsPaddingLargerThanHalfTheKernel) {
  const Node op =
      MakeOperator("nn.MaxPool2d", {"kernel_size=(2,2)", "stride=(2,2)", "padding=(2,2)"});
  EXPECT_THAT(LayerError(op, {{1, 2, 4, 4}}),
              HasSubstr("padding must be at most half the kernel size"));
}

TEST(MaxPooling, RejectsInputsThatAreNotFeatureMaps) {
  const Node op = MakeOperator("nn.MaxPool2d", {"kernel_size=(2,2)", "stride=(2,2)"});
  EXPECT_THAT(LayerError(op, {{4, 4}}),
              HasSubstr("expected a (C,H,W) or (N,C,H,W) input with non-empty H and W, got (4,4)"));
  EXPECT_THAT(LayerError(op, {{1, 2, 0, 4}}), HasSubstr("got (1,2,0,4)"));
  EXPECT_THAT(LayerError(op, {{1, 2, 1, 4}}),
              HasSubstr("input (1,2,1,4) is too small for the window"));
}

}  // namespace
}  // namespace lumen
