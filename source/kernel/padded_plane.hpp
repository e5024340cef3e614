// The zero-padded, phase-split copy of an input plane that the direct convolutions (depthwise,
// small-depth) read their windows from, so that no tap needs a bounds check.
//
// Each padded column keeps its rows split by phase (row % stride): with stride 2 the even rows,
// then the odd ones. Output rows oy, oy+1, ... read padded rows oy * stride + offset, which then
// lie next to each other in one phase, so every tap reads one contiguous run whatever the stride:
// tap (ky, kx) of output (ox, oy) is at column ox * stride_w + kx * dilation_w, phase
// (ky * dilation_h) % stride_h, row oy + (ky * dilation_h) / stride_h of that phase.
#ifndef LUMEN_SOURCE_KERNEL_PADDED_PLANE_HPP_
#define LUMEN_SOURCE_KERNEL_PADDED_PLANE_HPP_

#include <cstddef>

#include "math/window.hpp"

namespace lumen {

// The layout of one padded, phase-split plane: exactly the rows and columns the windows read
// (never more than the padded input plus one stride: MakeConvolutionShape checks that this fits
// an int, and pooling layers refuse padding over half the window, as PyTorch does).
struct PaddedPlane {
  int rows = 0;        // padded rows the windows read
  int cols = 0;        // padded columns the windows read
  int stride = 1;      // the row stride: the number of phases
  int phase_rows = 0;  // rows per phase: ceil(rows / stride)
  // Floats from one column to the next.
  size_t column_floats() const { return static_cast<size_t>(phase_rows) * stride; }
  // Floats of the plane itself.
  size_t plane_floats() const { return column_floats() * cols; }
  // Floats to reserve: the plane, plus `read_past` floats that a last partial tile of rows reads
  // past its end.
  size_t floats(int read_past) const { return plane_floats() + read_past; }
  // Where tap (ky, kx) of output (0, 0) lies in the plane; output (ox, oy) adds
  // ox * stride_w * column_floats() + oy.
  size_t TapOffset(const Window2d& window, int ky, int kx) const {
    const int row = ky * window.dilation_h;
    return static_cast<size_t>(kx) * window.dilation_w * column_floats() +
           static_cast<size_t>(row % stride) * phase_rows + row / stride;
  }
};

// The plane that `window` reads for an output of shape.output_h x shape.output_w.
PaddedPlane PaddedPlaneFor(const Window2d& window, const PlanePair& shape);

// Floats a cache line holds: AlignedPaddedPlaneFor starts every phase of every column on one.
inline constexpr int kCacheLineFloats = 16;

// PaddedPlaneFor's plane with its phases' rows rounded up to whole cache lines, when that plane
// takes at most `most_bytes` (else PaddedPlaneFor's): in a plane that starts on a cache line too,
// the loads of a tile's first row of taps (of its first two, with stride 2) then never straddle
// two lines, which costs a load port two loads. Worth it on maps that stay in the L1 cache: the
// 10% more floats of a 112-row map's columns pushed its plane out of it.
PaddedPlane AlignedPaddedPlaneFor(const Window2d& window, const PlanePair& shape,
                                  size_t most_bytes);

// Copies the column-major input_h x input_w `source` into `plane` with its top-left input pixel
// at padded (pad_top, pad_left). Writes only where input lands: the caller zeroes the plane once
// for all the channels it pads into it, since their zeros lie in the same places.
void CopyIntoPlane(const float* source, int input_h, int input_w, int pad_top, int pad_left,
                   const PaddedPlane& plane, float* target);

// CopyIntoPlane for input columns [first_col, end_col) only: a thread that computes some of the
// output columns copies just the input they read.
void CopyColumnsIntoPlane(const float* source, int input_h, int input_w, int pad_top, int pad_left,
                          int first_col, int end_col, const PaddedPlane& plane, float* target);

}  // namespace lumen

#endif  // LUMEN_SOURCE_KERNEL_PADDED_PLANE_HPP_
