// nn.AvgPool2d against PyTorch: count_include_pad both ways, ceil_mode, divisor_override, batches;
// shape inference at other sizes, hostile windows, and its errors.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "layer/layer_registry.hpp"
#include "support/case_runner.hpp"
#include "support/kernel_testing.hpp"

namespace lumen {
namespace {

using test_support::ExpectClose;
using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RandomValues;
using test_support::RunLayer;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(AveragePooling, avgpool_batch3_exclude_ceil)
LUMEN_LAYER_CASE_TEST(AveragePooling, avgpool_ceil)
LUMEN_LAYER_CASE_TEST(AveragePooling, avgpool_divisor)
LUMEN_LAYER_CASE_TEST(AveragePooling, avgpool_exclude_pad)
LUMEN_LAYER_CASE_TEST(AveragePooling, avgpool_include_pad)
// nn.AvgPool1d / F.avg_pool1d, and the golden case avgpool1d_k2_s2 in tmp/models.
LUMEN_LAYER_CASE_TEST(AveragePooling, avgpool1d_exclude_pad_ceil)
LUMEN_LAYER_CASE_TEST(AveragePooling, avgpool1d_include_pad)
LUMEN_LAYER_CASE_TEST(AveragePooling, avgpool1d_functional_unbatched)

TEST(AveragePooling, RegistersEverySpelling) {
  for (const char* type : {"nn.AvgPool2d", "F.avg_pool2d", "nn.AvgPool1d", "F.avg_pool1d"}) {
    EXPECT_TRUE(LayerRegistry::Has(type)) << type;
  }
}

// F.avg_pool1d(torch.tensor([[1., 2., 3., 4., 5.]]), 2) is [[1.5, 3.5]]; with padding 1 and
// count_include_pad=False it is [[1., 2.5, 4.5]].
TEST(AveragePooling, PoolsOneDimensionalSignalsByHand) {
  const Tensor input = Tensor::FromRowMajor({1, 2, 3, 4, 5}, {1, 5});
  EXPECT_EQ(RunLayer(MakeOperator("F.avg_pool1d", {"kernel_size=(2)", "stride=()"}), {input})[0]
                .ToRowMajor(),
            std::vector<float>({1.5f, 3.5f}));
  EXPECT_EQ(RunLayer(MakeOperator("nn.AvgPool1d", {"kernel_size=(2)", "stride=(2)", "padding=(1)",
                                                   "count_include_pad=False"}),
                     {input})[0]
                .ToRowMajor(),
            std::vector<float>({1.0f, 2.5f, 4.5f}));
}

TEST(AveragePooling, InfersTheOutputForAnyInputSize) {
  const Node op = MakeOperator(
      "nn.AvgPool2d", {"kernel_size=(3,3)", "stride=(2,2)", "padding=(1,1)", "ceil_mode=True"});
  EXPECT_EQ(InferShapes(op, {{5, 8, 10, 11}}), std::vector<Shape>({{5, 8, 6, 6}}));
  EXPECT_EQ(InferShapes(op, {{8, 3, 3}}), std::vector<Shape>({{8, 2, 2}}));
}

// A batch of 4 pooled on 3 threads gives what each sample pooled alone on 1 thread gives.
TEST(AveragePooling, PoolsEverySampleOfABatchOnAnyThreads) {
  const Node op = MakeOperator("nn.AvgPool2d", {"kernel_size=(3,3)", "stride=(2,2)",
                                                "padding=(1,1)", "count_include_pad=False"});
  std::mt19937 generator(23);
  const Shape shape{4, 6, 19, 17};
  const std::vector<float> values = RandomValues(ShapeElementCount(shape), &generator);
  const std::vector<float> batch =
      RunLayer(op, {Tensor::FromRowMajor(values, shape)}, 3)[0].ToRowMajor();
  const size_t sample_size = values.size() / 4;
  for (size_t sample = 0; sample < 4; ++sample) {
    const std::vector<float> one(values.begin() + sample * sample_size,
                                 values.begin() + (sample + 1) * sample_size);
    const std::vector<float> alone =
        RunLayer(op, {Tensor::FromRowMajor(one, {1, 6, 19, 17})}, 1)[0].ToRowMajor();
    const std::vector<float> part(batch.begin() + sample * alone.size(),
                                  batch.begin() + (sample + 1) * alone.size());
    EXPECT_EQ(part, alone) << "sample " << sample;
  }
}

// A window PyTorch accepts (padding half the kernel) but far larger than the input: without
// count_include_pad the one output is the plane's mean, summed over the input's taps only.
TEST(AveragePooling, RunsAHugePaddedWindowInTimeBoundedByTheInput) {
  const Node op = MakeOperator(
      "nn.AvgPool2d", {"kernel_size=(1073741824,1073741824)", "stride=(1073741824,1073741824)",
                       "padding=(536870912,536870912)", "count_include_pad=False"});
  std::vector<float> values(12);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  const std::vector<Tensor> outputs = RunLayer(op, {Tensor::FromRowMajor(values, {1, 1, 3, 4})});
  ASSERT_EQ(outputs[0].shape(), Shape({1, 1, 1, 1}));
  ExpectClose(outputs[0].ToRowMajor(), {5.5f}, 1e-6f, 1e-6f, "mean of 0..11");
}

TEST(AveragePooling, RejectsANonPositiveDivisor) {
  const Node op =
      MakeOperator("nn.AvgPool2d", {"kernel_size=(2,2)", "stride=(2,2)", "divisor_override=0"});
  EXPECT_THAT(LayerError(op, {{1, 2, 4, 4}}), HasSubstr("divisor_override must be positive"));
}

TEST(AveragePooling, RejectsPaddingLargerThanHalfTheKernel) {
  const Node op =
      MakeOperator("nn.AvgPool2d", {"kernel_size=(3,3)", "stride=(1,1)", "padding=(2,2)"});
  EXPECT_THAT(LayerError(op, {{1, 2, 8, 8}}),
              HasSubstr("padding must be at most half the kernel size"));
}

TEST(AveragePooling, RejectsAnInputTooSmallForTheWindow) {
  const Node op = MakeOperator("nn.AvgPool2d", {"kernel_size=(3,3)", "stride=(2,2)"});
  EXPECT_THAT(LayerError(op, {{1, 2, 2, 9}}),
              HasSubstr("input (1,2,2,9) is too small for the window: the output would be "
                        "(1,2,0,4)"));
}

}  // namespace
}  // namespace lumen
