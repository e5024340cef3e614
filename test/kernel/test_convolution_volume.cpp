// The vol2col + GEMM 3-D convolution against the reference one (the definition, loop by loop), on
// random data: geometries that reach each padding, stride, dilation and group path, with 1 and 2
// threads. Against PyTorch itself: test/layer/convolution/test_convolution3d.cpp.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kernel/convolution_volume.hpp"
#include "support/case_runner.hpp"
#include "support/kernel_testing.hpp"

namespace lumen {
namespace {

using test_support::ExpectAgree;
using test_support::RandomValues;
using test_support::TestContext;

// Both kernels add the same products in another order: with weights of order 1/sqrt(fan-in),
// outputs are of order 1 and reordering moves them by about 1e-6; a wrong tap is off by 0.01.
constexpr float kTolerance = 1e-4f;

// One geometry: channels, groups, input extents, and the (depth, height, width) kernel, stride,
// dilation and padding (front/back, top/bottom, left/right).
struct VolumeCase {
  std::string name;
  int in_channels, out_channels, groups;
  int input_d, input_h, input_w;
  int kernel[3], stride[3], dilation[3], pad_before[3], pad_after[3];
  bool bias;
};

VolumeConvolutionSpec MakeSpec(const VolumeCase& test, std::mt19937* generator) {
  VolumeConvolutionSpec spec;
  spec.plane.in_channels = test.in_channels;
  spec.plane.out_channels = test.out_channels;
  spec.plane.groups = test.groups;
  spec.depth = {test.kernel[0], test.stride[0], test.dilation[0], test.pad_before[0],
                test.pad_after[0]};
  Window2d& w = spec.plane.window;
  w.kernel_h = test.kernel[1];
  w.kernel_w = test.kernel[2];
  w.stride_h = test.stride[1];
  w.stride_w = test.stride[2];
  w.dilation_h = test.dilation[1];
  w.dilation_w = test.dilation[2];
  w.pad_top = test.pad_before[1];
  w.pad_bottom = test.pad_after[1];
  w.pad_left = test.pad_before[2];
  w.pad_right = test.pad_after[2];
  const int fan_in =
      test.in_channels / test.groups * test.kernel[0] * test.kernel[1] * test.kernel[2];
  const float scale = 1.0f / std::sqrt(static_cast<float>(fan_in));
  spec.plane.weights =
      RandomValues(static_cast<size_t>(test.out_channels) * fan_in, generator, -scale, scale);
  if (test.bias) spec.plane.bias = RandomValues(test.out_channels, generator);
  return spec;
}

class VolumeConvolutionTest : public ::testing::TestWithParam<VolumeCase> {};

TEST_P(VolumeConvolutionTest, Vol2colAgreesWithTheReference) {
  const VolumeCase& test = GetParam();
  std::mt19937 generator(25);
  const VolumeConvolutionSpec spec = MakeSpec(test, &generator);
  const VolumeShape shape = MakeVolumeShape(spec, test.input_d, test.input_h, test.input_w);
  ASSERT_GT(shape.output_d * shape.output_h * shape.output_w, 0);
  const std::vector<float> input = RandomValues(
      static_cast<size_t>(test.in_channels) * test.input_d * test.input_h * test.input_w,
      &generator);
  const size_t output_size =
      static_cast<size_t>(test.out_channels) * shape.output_d * shape.output_h * shape.output_w;
  std::vector<float> reference(output_size);
  TestContext reference_context;
  ReferenceVolumeConvolution(spec, shape, input.data(), reference.data(),
                             reference_context.compute());
  const VolumeConvolution convolution(spec);
  for (int threads : {1, 2}) {
    TestContext context(threads);
    const VolumeConvolutionPlan plan = PlanVolumeConvolution(spec, shape);
    std::vector<float> output(output_size, -7.0f);
    convolution.Run(plan, input.data(), output.data(), context.compute());
    ExpectAgree(output, "vol2col", reference, "reference", kTolerance, kTolerance,
                test.name + " on " + std::to_string(threads) + " thread(s)");
  }
}

INSTANTIATE_TEST_SUITE_P(
    Geometries, VolumeConvolutionTest,
    ::testing::Values(
        VolumeCase{
            "Cube3", 3, 4, 1, 5, 6, 7, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, true},
        VolumeCase{"StridedPadded",
                   4,
                   6,
                   1,
                   7,
                   8,
                   9,
                   {2, 3, 4},
                   {2, 2, 1},
                   {1, 1, 1},
                   {2, 2, 2},
                   {2, 2, 2},
                   true},
        VolumeCase{"DilatedGroups",
                   6,
                   4,
                   2,
                   6,
                   7,
                   8,
                   {3, 3, 3},
                   {1, 1, 1},
                   {1, 2, 2},
                   {1, 2, 2},
                   {1, 2, 2},
                   false},
        VolumeCase{"Depthwise",
                   4,
                   4,
                   4,
                   5,
                   5,
                   5,
                   {2, 2, 2},
                   {2, 2, 2},
                   {1, 1, 1},
                   {0, 1, 0},
                   {1, 0, 1},
                   true},
        VolumeCase{"PaddingWiderThanKernel",
                   2,
                   3,
                   1,
                   3,
                   4,
                   5,
                   {1, 2, 3},
                   {1, 1, 1},
                   {1, 1, 1},
                   {2, 4, 1},
                   {2, 4, 1},
                   false},
        VolumeCase{"StrideTwoDilationTwo",
                   3,
                   5,
                   1,
                   9,
                   10,
                   11,
                   {3, 3, 3},
                   {2, 2, 2},
                   {2, 2, 2},
                   {5, 6, 7},
                   {5, 6, 7},
                   true},
        // More output columns than one block holds: the blocks must tile the output.
        VolumeCase{"ManyBlocks",
                   16,
                   8,
                   1,
                   12,
                   20,
                   24,
                   {3, 3, 3},
                   {1, 1, 1},
                   {1, 1, 1},
                   {1, 1, 1},
                   {1, 1, 1},
                   true}),
    [](const ::testing::TestParamInfo<VolumeCase>& info) { return info.param.name; });

}  // namespace
}  // namespace lumen
