// Softmax kernels: exp(x) / sum(exp(x)) along one dimension, computed stably. Subtracting each
// slice's maximum before exp keeps every exponent <= 0, so nothing overflows (softmax is unchanged
// by a shift). nn.Softmax normalises slices of any tensor; attention normalises the rows of its
// score blocks. Both walk the same loops: many neighbouring slices at once, so that each inner
// loop runs over contiguous memory.
#ifndef LUMEN_KERNEL_SOFTMAX_HPP_
#define LUMEN_KERNEL_SOFTMAX_HPP_

#include "base/thread_pool.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// nn.Softmax's kernel: the softmax of every slice along the middle of `split` (outer x extent x
// inner, inner fastest), from `input` into `output` (which may be the same), spread over `pool`
// (may be null) when the tensor is large enough. Exact exp (std::exp).
void SoftmaxSlices(const AxisSplit& split, const float* input, float* output, ThreadPool* pool);

// The definition, one slice at a time, in double: the reference for both kernels.
void SoftmaxSlicesReference(const AxisSplit& split, const float* input, float* output);

// nn.LogSoftmax's kernel: log(softmax(x)) of every slice, as SoftmaxSlices walks them, computed as
// (x - max) - log(sum(exp(x - max))) so that it stays finite where the softmax underflows.
void LogSoftmaxSlices(const AxisSplit& split, const float* input, float* output, ThreadPool* pool);

// Its definition, one slice at a time, in double.
void LogSoftmaxSlicesReference(const AxisSplit& split, const float* input, float* output);

// Attention's kernel: the softmax of each row of the column-major rows x columns block `scores`,
// in place, on FastExp (which vectorises). A masked score (-inf) weighs exactly 0, and a row of
// only -inf gives NaN, as in PyTorch.
void SoftmaxRows(float* scores, int rows, int columns);

}  // namespace lumen

#endif  // LUMEN_KERNEL_SOFTMAX_HPP_
