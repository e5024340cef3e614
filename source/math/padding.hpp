// Padding along one axis: where each padded position reads from, for PyTorch's four modes. The
// pad layers (F.pad, nn.*Pad*d) and the padding modes of convolution share this one definition.
#ifndef LUMEN_MATH_PADDING_HPP_
#define LUMEN_MATH_PADDING_HPP_

#include <cstdint>

namespace lumen {

// PyTorch's padding modes: a constant value, the mirror image without the edge (reflect), the
// edge repeated (replicate), the other end wrapped around (circular).
enum class PaddingMode { kConstant, kReflect, kReplicate, kCircular };

// The name PyTorch uses ("constant", "reflect", "replicate", "circular").
const char* PaddingModeName(PaddingMode mode);

// One axis of `extent` input elements with `before` and `after` elements added at its ends; a
// negative count removes elements from that end instead (crops), as F.pad does.
struct AxisPadding {
  int64_t extent = 0;
  int64_t before = 0;
  int64_t after = 0;

  // extent + before + after: the padded extent (negative when the crops remove too much).
  int64_t PaddedExtent() const { return extent + before + after; }
};

// Empty when PyTorch accepts `padding` in `mode`, otherwise its reason (for a lumen::Error): the
// padded extent must not be negative (and must be positive for reflect and replicate), a reflect
// pad must be smaller than the extent, and a circular pad may wrap around the (cropped) axis at
// most once.
const char* PaddingProblem(PaddingMode mode, const AxisPadding& padding);

// The input index that padded position `index` (in [0, PaddedExtent())) reads, or -1 when it
// holds the constant. Reflect mirrors about the input's first and last elements; replicate
// clamps to them; circular wraps around the part of the axis left after cropping, as PyTorch
// does. `padding` must be valid (PaddingProblem empty).
int64_t PaddingSourceIndex(PaddingMode mode, const AxisPadding& padding, int64_t index);

}  // namespace lumen

#endif  // LUMEN_MATH_PADDING_HPP_
