// The sliding blocks (patches) of a plane that nn.Unfold extracts and nn.Fold sums back: im2col's
// walk, shared by both so that they agree on which input position each (tap, block) reads.
#ifndef LUMEN_KERNEL_PATCHES_HPP_
#define LUMEN_KERNEL_PATCHES_HPP_

#include <cstdint>

#include "math/window.hpp"

namespace lumen {

// Calls visit(tap, block, position) for every kernel tap (ki * kernel_w + kj, PyTorch's order
// within a channel's rows) and block (by * blocks_w + bx, PyTorch's column order) whose input
// position lies inside the input_h x input_w plane; `position` is that element's column-major
// index in the plane (x * input_h + y). Taps over the padding are skipped: they read zeros.
template <typename Visit>
void ForEachPatchTap(const Window2d& w, int input_h, int input_w, int blocks_h, int blocks_w,
                     Visit visit) {
  for (int ki = 0; ki < w.kernel_h; ++ki) {
    for (int kj = 0; kj < w.kernel_w; ++kj) {
      const int64_t tap = int64_t{ki} * w.kernel_w + kj;
      for (int by = 0; by < blocks_h; ++by) {
        const int64_t y = int64_t{by} * w.stride_h - w.pad_top + int64_t{ki} * w.dilation_h;
        if (y < 0 || y >= input_h) continue;
        for (int bx = 0; bx < blocks_w; ++bx) {
          const int64_t x = int64_t{bx} * w.stride_w - w.pad_left + int64_t{kj} * w.dilation_w;
          if (x < 0 || x >= input_w) continue;
          visit(tap, int64_t{by} * blocks_w + bx, x * input_h + y);
        }
      }
    }
  }
}

// The same over `planes` planes of plane_h x plane_w stored one after another, plane p being
// channel p % channels of sample p / channels, whose columns form one column-major
// (channels * kernel_h * kernel_w) x L matrix per sample, the samples one after another: calls
// visit(in-plane element, column element), the flat indices of the two elements every in-plane
// tap pairs (unfold copies the first into the second, fold adds the second into the first).
template <typename Visit>
void ForEachPatchElement(const Window2d& w, int plane_h, int plane_w, size_t planes,
                         int64_t channels, Visit visit) {
  const int blocks_h = w.OutputHeight(plane_h);
  const int blocks_w = w.OutputWidth(plane_w);
  const int64_t taps = int64_t{w.kernel_h} * w.kernel_w;
  const int64_t rows = channels * taps;  // a block's column is contiguous
  const int64_t plane_size = int64_t{plane_h} * plane_w;
  for (size_t plane = 0; plane < planes; ++plane) {
    const int64_t channel = static_cast<int64_t>(plane) % channels;
    const int64_t sample_start =
        static_cast<int64_t>(plane) / channels * rows * blocks_h * blocks_w;
    const int64_t plane_start = static_cast<int64_t>(plane) * plane_size;
    ForEachPatchTap(
        w, plane_h, plane_w, blocks_h, blocks_w, [&](int64_t tap, int64_t block, int64_t position) {
          visit(plane_start + position, sample_start + block * rows + channel * taps + tap);
        });
  }
}

}  // namespace lumen

#endif  // LUMEN_KERNEL_PATCHES_HPP_
