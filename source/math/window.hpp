// Window2d: the sliding-window geometry that convolution and pooling share.
#ifndef LUMEN_MATH_WINDOW_HPP_
#define LUMEN_MATH_WINDOW_HPP_

namespace lumen {

// The planes a 2-D window maps: a column-major input_h x input_w plane in, a column-major
// output_h x output_w plane out (one channel of a convolution or a pooling).
struct PlanePair {
  int input_h = 0, input_w = 0;
  int output_h = 0, output_w = 0;
};

// Kernel size, stride, dilation and (possibly asymmetric) zero padding of a 2-D window.
struct Window2d {
  int kernel_h = 1, kernel_w = 1;
  int stride_h = 1, stride_w = 1;
  int dilation_h = 1, dilation_w = 1;
  int pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;

  // Output rows for `input_h` input rows (PyTorch's formula, including its ceil_mode rule).
  int OutputHeight(int input_h, bool ceil_mode = false) const;
  // Output columns for `input_w` input columns.
  int OutputWidth(int input_w, bool ceil_mode = false) const;
};

// Kernel size, stride, dilation and zero padding of a window along one axis: the depth of a 3-D
// window (a 2-D window's axes are spelled out in Window2d, which convolution reads everywhere).
struct WindowAxis {
  int kernel = 1, stride = 1, dilation = 1;
  int pad_before = 0, pad_after = 0;

  // Output extent for `input` input positions (PyTorch's formula, including its ceil_mode rule).
  int OutputSize(int input, bool ceil_mode = false) const;
};

// A 3-D window: the depth axis and the window over each depth slice's plane. A 2-D window is a
// 3-D one of depth 1.
struct Window3d {
  WindowAxis depth;
  Window2d plane;
};

// Output extent of a sliding window along one axis, as torch computes it; 0 when the window does
// not fit. Computed in 64 bits: throws lumen::Error when the result does not fit in an int (a
// kernel of 2^30 with dilation 4 must not wrap around into a plausible size).
int SlidingOutputSize(int input, int kernel, int stride, int dilation, int pad_before,
                      int pad_after, bool ceil_mode);

}  // namespace lumen

#endif  // LUMEN_MATH_WINDOW_HPP_
