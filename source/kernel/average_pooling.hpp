// Average pooling of one channel (nn.AvgPool2d, nn.AvgPool1d): the mean over each sliding window.
#ifndef LUMEN_KERNEL_AVERAGE_POOLING_HPP_
#define LUMEN_KERNEL_AVERAGE_POOLING_HPP_

#include "kernel/pooling_plane.hpp"
#include "math/window.hpp"

namespace lumen {

// What an average divides by: PyTorch's count_include_pad and divisor_override.
struct AverageDivisor {
  bool count_include_pad = true;  // padding counts as zeros in the divisor
  int divisor_override = 0;       // when not 0, every window divides by it
};

// Each output is the sum of its window's taps inside the input, divided as `divisor` says
// (PyTorch's rule: the window clipped to input + padding for count_include_pad's divisor, then to
// the input for the sum). Needs dilation 1. The definition, and the only kernel: it reads each
// tap once per window that holds it.
void AveragePool(const Window2d& window, const AverageDivisor& divisor, const PoolingPlane& plane,
                 const float* input, float* output);

}  // namespace lumen

#endif  // LUMEN_KERNEL_AVERAGE_POOLING_HPP_
