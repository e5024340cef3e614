// The slices of a tensor along one dimension, for layers that read a whole slice to write each of
// their outputs (torch.argmax, torch.topk): where each slice starts in the input and in the
// output, for any output layout (the dimension kept, resized or dropped).
#ifndef LUMEN_LAYER_ARITHMETIC_AXIS_LINES_HPP_
#define LUMEN_LAYER_ARITHMETIC_AXIS_LINES_HPP_

#include <cstddef>
#include <vector>

#include "lumen/tensor.hpp"

namespace lumen {

// Every slice of an input along `axis`, with the memory steps to walk it and its output.
struct AxisLines {
  // One of the other dimensions: its extent and memory strides in the input and the output.
  struct Dimension {
    size_t extent;
    size_t input_stride;
    size_t output_stride;
  };
  size_t count = 1;               // how many slices
  size_t extent = 1;              // input elements per slice
  size_t input_step = 0;          // input memory distance between neighbouring elements of a slice
  size_t output_step = 0;         // output memory distance along the dimension (0 when dropped)
  std::vector<Dimension> others;  // the other dimensions, outermost first

  // Where slice `index` (0 <= index < count) starts in the input and in the output.
  void Locate(size_t index, size_t* input_base, size_t* output_base) const;
};

// The slices of `input` along `axis`, written into an output of shape `output`: the input's
// dimensions with `axis` either kept at any extent (`output_has_axis`) or dropped.
AxisLines MakeAxisLines(const Shape& input, size_t axis, const Shape& output, bool output_has_axis);

}  // namespace lumen

#endif  // LUMEN_LAYER_ARITHMETIC_AXIS_LINES_HPP_
