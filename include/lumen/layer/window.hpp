// Window2d: the sliding-window geometry that convolution and pooling share.
#ifndef LUMEN_LAYER_WINDOW_HPP_
#define LUMEN_LAYER_WINDOW_HPP_

#include "lumen/runtime/runtime_operator.hpp"

namespace lumen {

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

// Reads kernel_size, stride, dilation and padding from an operator. `padding` may be a pair, an
// int, or the strings "valid"/"same" (same padding puts the odd extra row at the bottom, as
// PyTorch does). A missing stride defaults to the kernel size when `stride_defaults_to_kernel`
// (pooling), else to 1. Throws lumen::Error on a non-positive kernel, stride or dilation.
Window2d ReadWindow2d(const RuntimeOperator& op, bool stride_defaults_to_kernel);

// Output extent of a sliding window along one axis, as torch computes it.
int SlidingOutputSize(int input, int kernel, int stride, int dilation, int pad_before,
                      int pad_after, bool ceil_mode);

}  // namespace lumen

#endif  // LUMEN_LAYER_WINDOW_HPP_
