#include "kernel/quantized_im2col.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace lumen {
namespace {

// target[i] = source[2 * i] for i < count: a stride-2 layer's column of taps. Apart from the
// general stride's loop so that the compiler can vectorise it (a fixed stride of 2 is two loads
// and a byte shuffle per vector; a variable one stays a byte at a time, which took a third of
// ResNet18's strided 3x3 layers).
void GatherEveryOther(const uint8_t* __restrict source, int count, uint8_t* __restrict target) {
  for (int i = 0; i < count; ++i) target[i] = source[2 * i];
}

// Sets rows [0, first) and [end, output_h) of every output column of one tap to the zero point.
// Row by row across the columns, not column by column: the runs within a column are a byte or two
// (a padding of 1), and GCC turns such a loop into memset calls, which cost more than the stores
// (they took 19% of a quantised ResNet18).
void FillPaddingRows(const ConvolutionShape& shape, int first, int end, uint8_t zero_point,
                     uint8_t* target) {
  // Locals: a store through uint8_t* may alias the shape, which the compiler would reload.
  const size_t height = shape.output_h;
  const int width = shape.output_w;
  const auto fill_row = [=](int oy) {
    for (int ox = 0; ox < width; ++ox) target[ox * height + oy] = zero_point;
  };
  for (int oy = 0; oy < first; ++oy) fill_row(oy);
  for (int oy = end; oy < static_cast<int>(height); ++oy) fill_row(oy);
}

// One column of taps of a stride-1 window whose output columns are as tall as the input's (3x3
// with padding 1, ...): output column ox and input column x = ox + column_offset then lie the
// same distance apart, so target[i] = plane[i + column_offset * input_h + row_offset] for every
// output column inside the plane, one copy for all of them instead of one per column (for 7x7
// maps, a 49-byte copy instead of seven of 7). The rows outside [first, end) read padding (or,
// through the shift, a neighbouring column) and get the zero point afterwards (FillPaddingRows).
void CopyShiftedPlane(const uint8_t* plane, size_t input_plane, const ConvolutionShape& shape,
                      int column_offset, int row_offset, int first, int end, uint8_t zero_point,
                      uint8_t* target) {
  const int height = shape.output_h;
  const int first_column = std::clamp(-column_offset, 0, shape.output_w);
  const int end_column = std::clamp(shape.input_w - column_offset, first_column, shape.output_w);
  std::memset(target, zero_point, static_cast<size_t>(first_column) * height);
  std::memset(target + static_cast<size_t>(end_column) * height, zero_point,
              static_cast<size_t>(shape.output_w - end_column) * height);
  // Every position of a row in [first, end) reads inside the plane; the clamp only drops
  // positions of the other rows, which the loop below sets.
  const std::ptrdiff_t shift =
      static_cast<std::ptrdiff_t>(column_offset) * shape.input_h + row_offset;
  const std::ptrdiff_t copy_begin =
      std::max<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(first_column) * height, -shift);
  const std::ptrdiff_t copy_end =
      std::min<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(end_column) * height,
                               static_cast<std::ptrdiff_t>(input_plane) - shift);
  if (copy_end > copy_begin) {
    std::memcpy(target + copy_begin, plane + copy_begin + shift, copy_end - copy_begin);
  }
  FillPaddingRows(shape, first, end, zero_point, target);
}

}  // namespace

void QuantizedIm2col(const uint8_t* input, int channels, const ConvolutionShape& shape,
                     const Window2d& window, uint8_t zero_point, uint8_t* rows, ThreadPool* pool) {
  const Window2d& w = window;
  const int taps = w.kernel_h * w.kernel_w;
  const size_t input_plane = static_cast<size_t>(shape.input_h) * shape.input_w;
  const size_t pixels = static_cast<size_t>(shape.output_h) * shape.output_w;
  const bool shifted_copy = w.stride_h == 1 && w.stride_w == 1 && shape.output_h == shape.input_h;
  // One channel per task (its taps' columns one after another): output columns x walk the input's
  // columns, and within one, rows read the input column at the stride (one contiguous copy when
  // the stride is 1).
  ParallelFor(
      pool, channels,
      [&](std::ptrdiff_t channel) {
        const uint8_t* plane = input + channel * input_plane;
        for (int ki = 0; ki < w.kernel_h; ++ki) {
          // The output rows whose input row y = oy * stride + row_offset lies inside the plane:
          // [first, end), so that the loops over them need no test.
          const int row_offset = ki * w.dilation_h - w.pad_top;  // y of output row 0
          int first = row_offset >= 0 ? 0 : (-row_offset + w.stride_h - 1) / w.stride_h;
          const int last_y = shape.input_h - 1 - row_offset;  // the largest oy * stride allowed
          const int end = last_y < 0 ? 0 : std::min(shape.output_h, last_y / w.stride_h + 1);
          first = std::min(first, end);
          for (int kj = 0; kj < w.kernel_w; ++kj) {
            uint8_t* target = rows + (channel * taps + ki * w.kernel_w + kj) * pixels;
            if (shifted_copy) {
              CopyShiftedPlane(plane, input_plane, shape, kj * w.dilation_w - w.pad_left,
                               row_offset, first, end, zero_point, target);
              continue;
            }
            for (int ox = 0; ox < shape.output_w; ++ox) {
              uint8_t* out = target + static_cast<size_t>(ox) * shape.output_h;
              const int x = ox * w.stride_w - w.pad_left + kj * w.dilation_w;
              if (x < 0 || x >= shape.input_w || first == end) {
                std::memset(out, zero_point, shape.output_h);
                continue;
              }
              // Input row of output row `first`, then every stride_h-th.
              const uint8_t* source = plane + static_cast<size_t>(x) * shape.input_h +
                                      (first * w.stride_h + row_offset);
              if (w.stride_h == 1) {
                std::memcpy(out + first, source, end - first);
              } else if (w.stride_h == 2) {
                GatherEveryOther(source, end - first, out + first);
              } else {
                for (int oy = first; oy < end; ++oy) out[oy] = source[(oy - first) * w.stride_h];
              }
            }
            FillPaddingRows(shape, first, end, zero_point, target);
          }
        }
      },
      Schedule::kStatic, pixels * channels * taps >= (size_t{1} << 15));
}

void ReferenceQuantizedIm2col(const uint8_t* input, int channels, const ConvolutionShape& shape,
                              const Window2d& window, uint8_t zero_point, uint8_t* rows) {
  const Window2d& w = window;
  const size_t pixels = static_cast<size_t>(shape.output_h) * shape.output_w;
  size_t column = 0;
  for (int channel = 0; channel < channels; ++channel) {
    for (int ki = 0; ki < w.kernel_h; ++ki) {
      for (int kj = 0; kj < w.kernel_w; ++kj, ++column) {
        for (int ox = 0; ox < shape.output_w; ++ox) {
          for (int oy = 0; oy < shape.output_h; ++oy) {
            const int y = oy * w.stride_h - w.pad_top + ki * w.dilation_h;
            const int x = ox * w.stride_w - w.pad_left + kj * w.dilation_w;
            const bool inside = y >= 0 && y < shape.input_h && x >= 0 && x < shape.input_w;
            rows[column * pixels + static_cast<size_t>(ox) * shape.output_h + oy] =
                inside
                    ? input[(static_cast<size_t>(channel) * shape.input_w + x) * shape.input_h + y]
                    : zero_point;
          }
        }
      }
    }
  }
}

}  // namespace lumen
