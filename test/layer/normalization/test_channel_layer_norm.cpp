// lumen.ChannelLayerNorm (LayerNorm over dimension 1 of an (N, C, H, W) tensor, which the
// ConvNeXt rewrite puts in place of permute -> nn.LayerNorm -> permute) against the definition in
// double precision, with weight and bias, on one and two threads; shape checks. The rewrite itself
// is checked against PyTorch by the convnext_blocks case.
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

using test_support::ExpectClose;
using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RandomValues;
using test_support::RunLayer;
using ::testing::HasSubstr;

// LayerNorm over the channels of row-major (N, C, H, W) `values`: each pixel's C values get their
// mean and biased variance removed, then weight[c] and bias[c].
std::vector<float> ReferenceChannelLayerNorm(const std::vector<float>& values, const Shape& shape,
                                             const std::vector<float>& weight,
                                             const std::vector<float>& bias, float eps) {
  const size_t channels = shape[1];
  const size_t pixels = static_cast<size_t>(shape[2]) * shape[3];
  std::vector<float> result(values.size());
  for (size_t n = 0; n < shape[0]; ++n) {
    for (size_t pixel = 0; pixel < pixels; ++pixel) {
      const auto at = [&](size_t c) { return (n * channels + c) * pixels + pixel; };
      double sum = 0, squares = 0;
      for (size_t c = 0; c < channels; ++c) sum += values[at(c)];
      const double mean = sum / channels;
      for (size_t c = 0; c < channels; ++c)
        squares += (values[at(c)] - mean) * (values[at(c)] - mean);
      const double inverse_std = 1 / std::sqrt(squares / channels + eps);
      for (size_t c = 0; c < channels; ++c) {
        result[at(c)] =
            static_cast<float>((values[at(c)] - mean) * inverse_std * weight[c] + bias[c]);
      }
    }
  }
  return result;
}

TEST(ChannelLayerNorm, MatchesTheDefinitionOnOneAndTwoThreads) {
  std::mt19937 generator(5);
  // 2 x 45 x 46 pixels: enough for both threads and for partial lane blocks.
  for (const Shape& shape : {Shape{1, 7, 5, 3}, Shape{2, 40, 45, 46}}) {
    const uint32_t channels = shape[1];
    const std::vector<float> values = RandomValues(ShapeElementCount(shape), &generator, -3, 5);
    const std::vector<float> weight = RandomValues(channels, &generator, 0.5f, 2);
    const std::vector<float> bias = RandomValues(channels, &generator, -1, 1);
    const Node op = MakeOperator("lumen.ChannelLayerNorm",
                                 {"normalized_shape=(" + std::to_string(channels) + ")", "eps=1e-6",
                                  "elementwise_affine=True"},
                                 {{"weight", {{static_cast<int>(channels)}, weight}},
                                  {"bias", {{static_cast<int>(channels)}, bias}}});
    for (int threads : {1, 2}) {
      const std::vector<Tensor> outputs =
          RunLayer(op, {Tensor::FromRowMajor(values, shape)}, threads);
      ExpectClose(outputs[0].ToRowMajor(),
                  ReferenceChannelLayerNorm(values, shape, weight, bias, 1e-6f), 1e-5f, 1e-4f,
                  ShapeToString(shape) + " on " + std::to_string(threads) + " threads");
    }
  }
}

TEST(ChannelLayerNorm, KeepsTheShapeAndRejectsOtherChannelCounts) {
  const Node op = MakeOperator("lumen.ChannelLayerNorm",
                               {"normalized_shape=(4)", "eps=1e-5", "elementwise_affine=False"});
  EXPECT_EQ(InferShapes(op, {{2, 4, 3, 5}}), std::vector<Shape>({{2, 4, 3, 5}}));
  EXPECT_THAT(LayerError(op, {{2, 5, 3, 4}}),
              HasSubstr("expected an input of shape (N,4,H,W), got (2,5,3,4)"));
  EXPECT_THAT(LayerError(op, {{4, 3}}), HasSubstr("got (4,3)"));
  EXPECT_THAT(LayerError(MakeOperator("lumen.ChannelLayerNorm",
                                      {"normalized_shape=(4,3)", "elementwise_affine=False"}),
                         {{2, 4, 3, 3}}),
              HasSubstr("normalized_shape must be one channel count, got (4,3)"));
}

}  // namespace
}  // namespace lumen
