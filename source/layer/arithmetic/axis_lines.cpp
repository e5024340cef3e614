#include "layer/arithmetic/axis_lines.hpp"

#include "tensor/strided.hpp"

namespace lumen {

void AxisLines::Locate(size_t index, size_t* input_base, size_t* output_base) const {
  *input_base = 0;
  *output_base = 0;
  for (size_t d = others.size(); d-- > 0;) {
    const size_t position = index % others[d].extent;
    index /= others[d].extent;
    *input_base += position * others[d].input_stride;
    *output_base += position * others[d].output_stride;
  }
}

AxisLines MakeAxisLines(const Shape& input, size_t axis, const Shape& output,
                        bool output_has_axis) {
  const std::vector<size_t> input_strides = StorageStrides(input);
  const std::vector<size_t> output_strides = StorageStrides(output);
  AxisLines lines;
  size_t output_axis = 0;
  for (size_t d = 0; d < input.size(); ++d) {
    if (d == axis) {
      lines.extent = input[d];
      lines.input_step = input_strides[d];
      if (output_has_axis) lines.output_step = output_strides[output_axis++];
      continue;
    }
    lines.others.push_back({input[d], input_strides[d], output_strides[output_axis++]});
    lines.count *= input[d];
  }
  return lines;
}

}  // namespace lumen
