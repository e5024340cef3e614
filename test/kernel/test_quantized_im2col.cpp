// QuantizedIm2col against its reference over windows that stride, dilate, pad (asymmetrically)
// and overhang the plane, on one thread and two.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernel/quantized_im2col.hpp"
#include "support/case_runner.hpp"

namespace lumen {
namespace {

TEST(QuantizedIm2col, MatchesTheReference) {
  struct Case {
    Window2d window;
    int channels, input_h, input_w;
  };
  const auto window = [](int kh, int kw, int sh, int sw, int dh, int dw, int top, int bottom,
                         int left, int right) {
    Window2d w;
    w.kernel_h = kh, w.kernel_w = kw, w.stride_h = sh, w.stride_w = sw;
    w.dilation_h = dh, w.dilation_w = dw;
    w.pad_top = top, w.pad_bottom = bottom, w.pad_left = left, w.pad_right = right;
    return w;
  };
  const std::vector<Case> cases = {
      {window(3, 3, 1, 1, 1, 1, 1, 1, 1, 1), 3, 7, 9},
      {window(1, 1, 2, 2, 1, 1, 0, 0, 0, 0), 4, 9, 8},
      {window(3, 3, 2, 2, 2, 2, 2, 2, 2, 2), 2, 11, 10},
      {window(5, 3, 3, 1, 1, 2, 4, 0, 0, 3), 3, 6, 5},    // padding wider than a stride
      {window(7, 7, 2, 2, 1, 1, 3, 3, 3, 3), 3, 16, 16},  // a ResNet stem
      // Columns of 38 and 39 output rows, long enough for the stride-2 gather's vector loop and
      // its remainder; bottom padding that ends the column early.
      {window(3, 3, 2, 1, 1, 1, 1, 0, 1, 1), 2, 75, 3},
      {window(3, 3, 2, 2, 1, 1, 1, 3, 0, 0), 2, 75, 5},
      // Stride 1 with output columns as tall as the input's (one shifted copy per tap): padding
      // 1, wider on one side, dilated, wider than the plane, and a plane of one row.
      {window(3, 3, 1, 1, 1, 1, 1, 1, 1, 1), 3, 7, 7},
      {window(3, 3, 1, 1, 1, 1, 1, 1, 0, 2), 2, 5, 6},
      {window(3, 5, 1, 1, 2, 1, 2, 2, 3, 1), 2, 6, 4},
      {window(1, 9, 1, 1, 1, 1, 0, 0, 4, 4), 2, 3, 2},
      {window(3, 3, 1, 1, 1, 1, 1, 1, 1, 1), 1, 1, 1},
  };
  std::mt19937 generator(1);
  std::uniform_int_distribution<int> byte(0, 255);
  for (const Case& c : cases) {
    const ConvolutionShape shape = MakeConvolutionShape(c.window, c.input_h, c.input_w);
    std::vector<uint8_t> input(static_cast<size_t>(c.channels) * c.input_h * c.input_w);
    for (uint8_t& value : input) value = static_cast<uint8_t>(byte(generator));
    const size_t size = static_cast<size_t>(shape.output_h) * shape.output_w * c.channels *
                        c.window.kernel_h * c.window.kernel_w;
    std::vector<uint8_t> expected(size);
    ReferenceQuantizedIm2col(input.data(), c.channels, shape, c.window, 77, expected.data());
    for (int threads : {1, 2}) {
      test_support::TestContext context(threads);
      std::vector<uint8_t> got(size, 1);
      QuantizedIm2col(input.data(), c.channels, shape, c.window, 77, got.data(),
                      context.compute().pool);
      EXPECT_EQ(got, expected) << "kernel " << c.window.kernel_h << "x" << c.window.kernel_w
                               << " input " << c.input_h << "x" << c.input_w << " threads "
                               << threads;
    }
  }
}

}  // namespace
}  // namespace lumen
