// nn.ConvTranspose2d against PyTorch (groups, dilation, output_padding, non-square, batches), at
// other input sizes and thread counts against the definition, shape inference and errors; the
// 1-D and 3-D modules and F.conv_transpose1d/2d/3d (weights as operands) against PyTorch.
//
// The cases run one-operator PNNX models written by scripts/make_layer_cases.py, whose expected
// outputs come from PyTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "layer/layer_config.hpp"
#include "layer/layer_registry.hpp"
#include "support/case_runner.hpp"
#include "support/kernel_testing.hpp"
#include "support/source_directory.hpp"

namespace lumen {
namespace {

using test_support::ExpectClose;
using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::RandomValues;
using test_support::TestContext;
using ::testing::HasSubstr;

LUMEN_LAYER_CASE_TEST(TransposedConvolution, deconv_batch2_k2_s2)
LUMEN_LAYER_CASE_TEST(TransposedConvolution, deconv_batch3_groups2_dilation2)
LUMEN_LAYER_CASE_TEST(TransposedConvolution, deconv_dilation2)
LUMEN_LAYER_CASE_TEST(TransposedConvolution, deconv_groups2)
LUMEN_LAYER_CASE_TEST(TransposedConvolution, deconv_k4_s2_p1)
LUMEN_LAYER_CASE_TEST(TransposedConvolution, deconv_nobias_odd)
LUMEN_LAYER_CASE_TEST(TransposedConvolution, deconv1d_stride2_output_padding)
LUMEN_LAYER_CASE_TEST(TransposedConvolution, deconv1d_groups_dilation_unbatched)
LUMEN_LAYER_CASE_TEST(TransposedConvolution, deconv3d_strided)
LUMEN_LAYER_CASE_TEST(TransposedConvolution, deconv3d_groups_dilation_batch2)
LUMEN_LAYER_CASE_TEST(TransposedConvolution, deconv1d_functional)
LUMEN_LAYER_CASE_TEST(TransposedConvolution, deconv2d_functional)
LUMEN_LAYER_CASE_TEST(TransposedConvolution, deconv3d_functional)

// The PyTorch cases again on 2 and 3 threads.
TEST(TransposedConvolution, CasesMatchOnMoreThreads) {
  for (const char* name :
       {"deconv_batch2_k2_s2", "deconv_batch3_groups2_dilation2", "deconv_nobias_odd"}) {
    for (int threads : {2, 3}) {
      SCOPED_TRACE(testing::Message() << name << " on " << threads << " threads");
      test_support::ExpectCaseMatches(
          lumen::test_support::SourceDirectory() + "/test/data/layers/" + name,
          {threads, true, true});
    }
  }
}

// A transposed convolution's parameters.
struct Deconv {
  int in = 1, out = 1, groups = 1;
  int kernel_h = 1, kernel_w = 1;
  int stride_h = 1, stride_w = 1;
  int padding_h = 0, padding_w = 0;
  int output_padding_h = 0, output_padding_w = 0;
  int dilation_h = 1, dilation_w = 1;
  bool bias = true;
};

std::string Pair(int first, int second) {
  return "(" + std::to_string(first) + "," + std::to_string(second) + ")";
}

// The operator for `d` with `weights` (in, out/groups, kH, kW) and `bias` (empty: no bias).
Node DeconvOp(const Deconv& d, const std::vector<float>& weights = {},
              const std::vector<float>& bias = {}) {
  std::map<std::string, test_support::Weight> attributes = {
      {"weight", {{d.in, d.out / d.groups, d.kernel_h, d.kernel_w}, weights}}};
  if (d.bias) attributes["bias"] = {{d.out}, bias};
  return MakeOperator(
      "nn.ConvTranspose2d",
      {"in_channels=" + std::to_string(d.in), "out_channels=" + std::to_string(d.out),
       "kernel_size=" + Pair(d.kernel_h, d.kernel_w), "stride=" + Pair(d.stride_h, d.stride_w),
       "padding=" + Pair(d.padding_h, d.padding_w),
       "output_padding=" + Pair(d.output_padding_h, d.output_padding_w),
       "dilation=" + Pair(d.dilation_h, d.dilation_w), "groups=" + std::to_string(d.groups),
       d.bias ? "bias=True" : "bias=False"},
      attributes);
}

// The definition: every input pixel adds weight * value to the output pixels its kernel lands on.
// Row-major (N, C, H, W) in and out.
std::vector<float> ReferenceDeconv(const Deconv& d, const std::vector<float>& weights,
                                   const std::vector<float>& bias, const std::vector<float>& input,
                                   int batch, int input_h, int input_w, int output_h,
                                   int output_w) {
  const int group_in = d.in / d.groups;
  const int group_out = d.out / d.groups;
  std::vector<float> output(static_cast<size_t>(batch) * d.out * output_h * output_w);
  for (int n = 0; n < batch; ++n) {
    for (int oc = 0; oc < d.out; ++oc) {
      for (int i = 0; i < output_h * output_w; ++i) {
        output[(static_cast<size_t>(n) * d.out + oc) * output_h * output_w + i] =
            bias.empty() ? 0.0f : bias[oc];
      }
    }
    for (int ic = 0; ic < d.in; ++ic) {
      const int group = ic / group_in;
      for (int iy = 0; iy < input_h; ++iy) {
        for (int ix = 0; ix < input_w; ++ix) {
          const float value =
              input[((static_cast<size_t>(n) * d.in + ic) * input_h + iy) * input_w + ix];
          for (int c = 0; c < group_out; ++c) {
            const int oc = group * group_out + c;
            for (int ky = 0; ky < d.kernel_h; ++ky) {
              for (int kx = 0; kx < d.kernel_w; ++kx) {
                const int oy = iy * d.stride_h - d.padding_h + ky * d.dilation_h;
                const int ox = ix * d.stride_w - d.padding_w + kx * d.dilation_w;
                if (oy < 0 || oy >= output_h || ox < 0 || ox >= output_w) continue;
                const float weight =
                    weights[((static_cast<size_t>(ic) * group_out + c) * d.kernel_h + ky) *
                                d.kernel_w +
                            kx];
                output[((static_cast<size_t>(n) * d.out + oc) * output_h + oy) * output_w + ox] +=
                    weight * value;
              }
            }
          }
        }
      }
    }
  }
  return output;
}

// Runs a layer for `d` with random weights on a random (batch, in, input_h, input_w) input on
// `threads` threads, as a session does (OutputShapes, Prepare, Forward), and compares it with the
// definition; also EXPECTs that Forward uses no scratch Prepare did not reserve.
void ExpectMatchesDefinition(const Deconv& d, uint32_t batch, uint32_t input_h, uint32_t input_w,
                             int threads, std::mt19937* generator, const Layer* shared = nullptr,
                             const std::vector<float>* shared_weights = nullptr,
                             const std::vector<float>* shared_bias = nullptr) {
  SCOPED_TRACE(testing::Message() << d.in << "->" << d.out << " g" << d.groups << " k" << d.kernel_h
                                  << "x" << d.kernel_w << " s" << d.stride_h << "x" << d.stride_w
                                  << " at " << batch << "x" << input_h << "x" << input_w << " on "
                                  << threads << " threads");
  std::vector<float> weights;
  std::vector<float> bias;
  std::unique_ptr<Layer> owned;
  if (shared != nullptr) {
    weights = *shared_weights;
    bias = *shared_bias;
  } else {
    weights = RandomValues(static_cast<size_t>(d.in) * (d.out / d.groups) * d.kernel_h * d.kernel_w,
                           generator, -0.3f, 0.3f);
    if (d.bias) bias = RandomValues(d.out, generator);
    const Node op = DeconvOp(d, weights, bias);
    owned = LayerRegistry::Create(LayerConfig(op));
    shared = owned.get();
  }
  const Shape input_shape{batch, static_cast<uint32_t>(d.in), input_h, input_w};
  const std::vector<float> values = RandomValues(ShapeElementCount(input_shape), generator);
  const Tensor input = Tensor::FromRowMajor(values, input_shape);
  const std::vector<Shape> output_shapes = shared->OutputShapes({input_shape});
  const Shape& output_shape = output_shapes[0];
  TestContext context(threads);
  std::unique_ptr<LayerState> state =
      shared->Prepare({input_shape}, output_shapes, context.prepare());
  const size_t reserved = context.compute().workspace->bytes();
  Tensor output(output_shape);
  output.Fill(std::nanf(""));
  shared->Forward({&input}, {&output}, {context.compute(), state.get()});
  EXPECT_EQ(context.compute().workspace->bytes(), reserved)
      << "Forward used scratch Prepare did not reserve";
  ExpectClose(output.ToRowMajor(),
              ReferenceDeconv(d, weights, bias, values, static_cast<int>(batch),
                              static_cast<int>(input_h), static_cast<int>(input_w),
                              static_cast<int>(output_shape[2]), static_cast<int>(output_shape[3])),
              1e-4f, 1e-4f, "transposed convolution");
}

Deconv Make(int in, int out, int kernel, int stride, int padding, int output_padding = 0,
            int groups = 1, int dilation = 1, bool bias = true) {
  Deconv d;
  d.in = in;
  d.out = out;
  d.groups = groups;
  d.kernel_h = d.kernel_w = kernel;
  d.stride_h = d.stride_w = stride;
  d.padding_h = d.padding_w = padding;
  d.output_padding_h = d.output_padding_w = output_padding;
  d.dilation_h = d.dilation_w = dilation;
  d.bias = bias;
  return d;
}

TEST(TransposedConvolution, MatchesTheDefinitionAtOtherSizesBatchesAndThreads) {
  std::mt19937 generator(8);
  Deconv asymmetric = Make(3, 4, 1, 1, 0);
  asymmetric.kernel_h = 2;
  asymmetric.kernel_w = 5;
  asymmetric.stride_h = 3;
  asymmetric.stride_w = 1;
  asymmetric.padding_h = 1;
  asymmetric.padding_w = 2;
  asymmetric.output_padding_h = 2;
  asymmetric.dilation_w = 2;
  const Deconv deconvs[] = {Make(4, 6, 3, 2, 1, 1, 2), Make(8, 4, 2, 2, 0),
                            Make(3, 5, 4, 2, 1, 0, 1, 1, false), Make(6, 6, 3, 1, 2, 0, 3, 2),
                            asymmetric};
  for (const Deconv& d : deconvs) {
    for (const auto& [batch, height, width] :
         std::vector<std::array<uint32_t, 3>>{{1, 1, 1}, {2, 5, 9}, {3, 12, 7}, {1, 31, 2}}) {
      for (int threads : {1, 2, 3}) {
        ExpectMatchesDefinition(d, batch, height, width, threads, &generator);
      }
    }
  }
}

// 16 channels in, 16 * 9 columns per input pixel: a 50x50 input's columns (1.4 MB) are computed
// in two blocks of input columns, the second partial.
TEST(TransposedConvolution, LargeInputsAreComputedInBlocks) {
  std::mt19937 generator(9);
  ExpectMatchesDefinition(Make(16, 16, 3, 2, 1, 1), 2, 50, 50, 2, &generator);
  ExpectMatchesDefinition(Make(4, 4, 3, 1, 1, 0, 2), 1, 300, 260, 3, &generator);
}

// Sessions on many threads share one layer, each with its own input sizes.
TEST(TransposedConvolution, SessionsOnManyThreadsShareOneLayer) {
  std::mt19937 generator(10);
  const Deconv d = Make(6, 4, 3, 2, 1, 1, 2);
  const std::vector<float> weights =
      RandomValues(static_cast<size_t>(d.in) * (d.out / d.groups) * 9, &generator);
  const std::vector<float> bias = RandomValues(d.out, &generator);
  const Node op = DeconvOp(d, weights, bias);
  const std::unique_ptr<Layer> layer = LayerRegistry::Create(LayerConfig(op));
  std::vector<std::thread> sessions;
  for (int session = 0; session < 4; ++session) {
    sessions.emplace_back([&, session] {
      std::mt19937 own(static_cast<unsigned>(session));
      for (uint32_t size : {3u, 17u, 8u}) {
        ExpectMatchesDefinition(d, 2, size + session, size, 1 + session % 2, &own, layer.get(),
                                &weights, &bias);
      }
    });
  }
  for (std::thread& session : sessions) session.join();
}

TEST(TransposedConvolution, InfersTheOutputSizeFromTheInputSize) {
  // (H - 1) * s - 2p + d (k - 1) + op + 1: (5 - 1) * 2 - 2 + 2 * 2 + 1 + 1 = 12.
  const Node op = DeconvOp(Make(4, 6, 3, 2, 1, 1, 2, 2));
  EXPECT_EQ(InferShapes(op, {{3, 4, 5, 6}}), (std::vector<Shape>{{3, 6, 12, 14}}));
  EXPECT_EQ(InferShapes(op, {{1, 4, 1, 1}}), (std::vector<Shape>{{1, 6, 4, 4}}));
  EXPECT_EQ(InferShapes(op, {{4, 7, 3}}), (std::vector<Shape>{{6, 16, 8}}));
}

TEST(TransposedConvolution, RejectsOutputPaddingNotBelowStride) {
  const Node op = MakeOperator(
      "nn.ConvTranspose2d",
      {"in_channels=2", "out_channels=2", "kernel_size=(3,3)", "stride=(2,2)", "padding=(1,1)",
       "output_padding=(2,2)", "dilation=(1,1)", "groups=1", "bias=False"},
      {{"weight", {{2, 2, 3, 3}, {}}}});
  EXPECT_THAT(LayerError(op, {{1, 2, 4, 4}}),
              HasSubstr("output_padding must be smaller than either stride or dilation"));
}

TEST(TransposedConvolution, RejectsAnInputWithOtherChannels) {
  EXPECT_THAT(LayerError(DeconvOp(Make(4, 6, 3, 2, 1)), {{1, 5, 9, 9}}),
              HasSubstr("expected an input of shape (N,4,H,W) or (4,H,W), got (1,5,9,9)"));
}

TEST(TransposedConvolution, RejectsPaddingThatLeavesNoOutput) {
  EXPECT_THAT(LayerError(DeconvOp(Make(2, 2, 1, 1, 1)), {{1, 2, 2, 2}}),
              HasSubstr("the input (1,2,2,2) gives an empty output: the padding 1 cuts off"));
}

TEST(TransposedConvolution, RejectsStringPaddingAndOtherPaddingModes) {
  Node op = DeconvOp(Make(2, 2, 3, 1, 1));
  op.params["padding"] = Parameter::Parse("same");
  EXPECT_THAT(LayerError(op, {{1, 2, 4, 4}}),
              HasSubstr("string padding is not defined for transposed convolution"));
  op = DeconvOp(Make(2, 2, 3, 1, 1));
  op.params["padding_mode"] = Parameter::Parse("reflect");
  EXPECT_EQ(LayerError(op, {{1, 2, 4, 4}}),
            "nn.ConvTranspose2d 'op': padding_mode 'reflect' is not supported (only 'zeros')");
}

}  // namespace
}  // namespace lumen
