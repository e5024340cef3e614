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

}  // namespace

void QuantizedIm2col(const uint8_t* input, int channels, const ConvolutionShape& shape,
                     const Window2d& window, uint8_t zero_point, uint8_t* rows, ThreadPool* pool) {
  const Window2d& w = window;
  const int taps = w.kernel_h * w.kernel_w;
  const size_t input_plane = static_cast<size_t>(shape.input_h) * shape.input_w;
  const size_t pixels = static_cast<size_t>(shape.output_h) * shape.output_w;
  // The output rows whose input row y = oy * stride - pad + ki * dilation lies inside the plane:
  // [first, end) for tap row ki, so that the loop over them needs no test.
  const auto inside_rows = [&](int ki, int* first, int* end) {
    const int offset = ki * w.dilation_h - w.pad_top;  // y of output row 0
    *first = offset >= 0 ? 0 : (-offset + w.stride_h - 1) / w.stride_h;
    const int last_y = shape.input_h - 1 - offset;  // the largest oy * stride allowed
    *end = last_y < 0 ? 0 : std::min(shape.output_h, last_y / w.stride_h + 1);
    *first = std::min(*first, *end);
  };
  // One column (channel, tap) per task: output columns x walk the input's columns, and within one,
  // rows read the input column at the stride (one contiguous copy when the stride is 1).
  ParallelFor(
      pool, static_cast<std::ptrdiff_t>(channels) * taps,
      [&](std::ptrdiff_t column) {
        const int channel = static_cast<int>(column / taps);
        const int ki = static_cast<int>(column % taps) / w.kernel_w;
        const int kj = static_cast<int>(column % taps) % w.kernel_w;
        const uint8_t* plane = input + channel * input_plane;
        uint8_t* target = rows + column * pixels;
        int first = 0;
        int end = 0;
        inside_rows(ki, &first, &end);
        const int row_offset = ki * w.dilation_h - w.pad_top;
        for (int ox = 0; ox < shape.output_w; ++ox) {
          uint8_t* out = target + static_cast<size_t>(ox) * shape.output_h;
          const int x = ox * w.stride_w - w.pad_left + kj * w.dilation_w;
          if (x < 0 || x >= shape.input_w || first == end) {
            std::memset(out, zero_point, shape.output_h);
            continue;
          }
          if (first > 0) std::memset(out, zero_point, first);
          // Input row of output row `first`, then every stride_h-th.
          const uint8_t* source =
              plane + static_cast<size_t>(x) * shape.input_h + (first * w.stride_h + row_offset);
          if (w.stride_h == 1) {
            std::memcpy(out + first, source, end - first);
          } else if (w.stride_h == 2) {
            GatherEveryOther(source, end - first, out + first);
          } else {
            for (int oy = first; oy < end; ++oy) out[oy] = source[(oy - first) * w.stride_h];
          }
          if (end < shape.output_h) std::memset(out + end, zero_point, shape.output_h - end);
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
