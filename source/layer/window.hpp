// Reading a sliding window's geometry from an operator's parameters (convolution and pooling).
#ifndef LUMEN_LAYER_WINDOW_HPP_
#define LUMEN_LAYER_WINDOW_HPP_

#include <cstddef>
#include <vector>

#include "layer/layer_config.hpp"
#include "math/window.hpp"

namespace lumen {

// Reads kernel_size, stride, dilation and padding from an operator. `padding` may be a pair, an
// int, or the strings "valid"/"same" (same padding puts the odd extra row at the bottom, as
// PyTorch does). A missing stride defaults to the kernel size when `stride_defaults_to_kernel`
// (pooling), else to 1. Throws lumen::Error on a non-positive kernel, stride or dilation.
Window2d ReadWindow2d(const LayerConfig& op, bool stride_defaults_to_kernel);

// The same for a 1-D operator (Conv1d, MaxPool1d, AvgPool1d), whose kernel_size, stride, dilation
// and padding are single ints (or one-element lists): a window of height 1 sliding along the
// width, so that 1-D operators run on the 2-D machinery.
Window2d ReadWindow1d(const LayerConfig& op, bool stride_defaults_to_kernel);

// The same for a 3-D operator (MaxPool3d, AvgPool3d), whose parameters are triples (or an int for
// every axis): the depth axis and the plane's window.
Window3d ReadWindow3d(const LayerConfig& op, bool stride_defaults_to_kernel);

// What the three readers share: `axes` axes read from ints or lists of 1 or `axes` ints, in
// PyTorch's order (depth, height, width).
std::vector<WindowAxis> ReadWindowAxes(const LayerConfig& op, size_t axes,
                                       bool stride_defaults_to_kernel);

}  // namespace lumen

#endif  // LUMEN_LAYER_WINDOW_HPP_
