// Adaptive pooling of one channel (nn.AdaptiveAvgPool2d, nn.AdaptiveMaxPool2d): a fixed output
// size whatever the input size. PyTorch places output cell (i, j) of an OH x OW output over input
// rows [floor(i*H/OH), ceil((i+1)*H/OH)) and columns [floor(j*W/OW), ceil((j+1)*W/OW)): the
// windows may overlap and differ in size. The average and the maximum walk the same windows; only
// what they compute over each one differs.
#ifndef LUMEN_KERNEL_ADAPTIVE_POOLING_HPP_
#define LUMEN_KERNEL_ADAPTIVE_POOLING_HPP_

#include <cstdint>

#include "kernel/pooling_plane.hpp"

namespace lumen {

// Input indices [begin, end) along one dimension that one output index pools.
struct AdaptiveWindow {
  int64_t begin = 0;
  int64_t end = 0;
};

// The window of output index `index` when `input_extent` indices are pooled into `output_extent`
// (both positive). In 64 bits: index * extent overflows an int for large maps.
AdaptiveWindow AdaptiveWindowOf(int64_t index, int64_t input_extent, int64_t output_extent);

// Each output cell is the mean of its window, summed by the definition: the reference.
void AdaptiveAveragePoolReference(const PoolingPlane& plane, const float* input, float* output);

// The same means, each window's columns summed in eight running sums that vectorise, and a window
// of whole columns (a global pool) summed as one contiguous run.
void AdaptiveAveragePool(const PoolingPlane& plane, const float* input, float* output);

// A global average pool (one output cell, every window the whole plane) of `channels` planes of
// `area` floats each, one contiguous run per channel: AdaptiveAveragePool's numbers without its
// per-channel window arithmetic, which cost more than summing a 7x7 plane.
void GlobalAveragePool(const float* input, int64_t channels, int64_t area, float* output);

// Each output cell is the maximum of its window; NaN wins, as in PyTorch. A maximum involves no
// rounding, so this one kernel is its own reference.
void AdaptiveMaxPool(const PoolingPlane& plane, const float* input, float* output);

}  // namespace lumen

#endif  // LUMEN_KERNEL_ADAPTIVE_POOLING_HPP_
