// im2col over uint8 activations: the rows a quantised convolution's int8 GEMM multiplies.
#ifndef LUMEN_KERNEL_QUANTIZED_IM2COL_HPP_
#define LUMEN_KERNEL_QUANTIZED_IM2COL_HPP_

#include <cstdint>

#include "base/thread_pool.hpp"
#include "kernel/convolution_algorithm.hpp"

namespace lumen {

// Writes the column-major (output_h * output_w) x (channels * kernel_h * kernel_w) matrix whose
// row i is output pixel i's receptive field (i = x * output_h + y, the output plane's column-major
// order) and whose column p = channel * taps + ki * kernel_w + kj is PyTorch's weight order, so
// that the GEMM's A is this matrix and W is the weights as stored. `input` holds `channels`
// column-major input planes of `shape`'s input size one after another. Taps over the padding
// read `zero_point`: the quantised value of 0.0, so that zero padding stays exact.
void QuantizedIm2col(const uint8_t* input, int channels, const ConvolutionShape& shape,
                     const Window2d& window, uint8_t zero_point, uint8_t* rows, ThreadPool* pool);

// The same matrix by one plain loop per element, reading each tap through its definition: the
// reference QuantizedIm2col is tested against.
void ReferenceQuantizedIm2col(const uint8_t* input, int channels, const ConvolutionShape& shape,
                              const Window2d& window, uint8_t zero_point, uint8_t* rows);

}  // namespace lumen

#endif  // LUMEN_KERNEL_QUANTIZED_IM2COL_HPP_
