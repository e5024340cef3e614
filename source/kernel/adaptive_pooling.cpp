#include "kernel/adaptive_pooling.hpp"

#include <cmath>
#include <cstddef>

namespace lumen {
namespace {

// Writes reduce(rows, columns), the value of one cell over its window, to every output cell,
// column by column (the output's memory order): the walk every adaptive pooling shares.
template <typename Reduce>
void ForEachCell(const PoolingPlane& plane, float* output, Reduce reduce) {
  for (int64_t ox = 0; ox < plane.output_w; ++ox) {
    const AdaptiveWindow columns = AdaptiveWindowOf(ox, plane.input_w, plane.output_w);
    for (int64_t oy = 0; oy < plane.output_h; ++oy) {
      const AdaptiveWindow rows = AdaptiveWindowOf(oy, plane.input_h, plane.output_h);
      output[ox * plane.output_h + oy] = reduce(rows, columns);
    }
  }
}

// The number of input cells in a window.
float CellCount(const AdaptiveWindow& rows, const AdaptiveWindow& columns) {
  return static_cast<float>((rows.end - rows.begin) * (columns.end - columns.begin));
}

// The sum of `count` consecutive floats, in eight running sums that the compiler vectorises: one
// running sum is a chain of dependent adds, which made a squeeze-and-excitation block's global
// pool cost about 1 ns per float.
float SumRun(const float* run, int64_t count) {
  float partial[8] = {};
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    for (int lane = 0; lane < 8; ++lane) partial[lane] += run[i + lane];
  }
  float sum = 0.0f;
  for (; i < count; ++i) sum += run[i];
  for (const float value : partial) sum += value;
  return sum;
}

}  // namespace

AdaptiveWindow AdaptiveWindowOf(int64_t index, int64_t input_extent, int64_t output_extent) {
  // LESSON 09 BEGIN: output index i pools [floor(i*H/OH), ceil((i+1)*H/OH)), as PyTorch places it
  return {index * input_extent / output_extent,
          ((index + 1) * input_extent + output_extent - 1) / output_extent};
  // LESSON 09 END
}

void AdaptiveAveragePoolReference(const PoolingPlane& plane, const float* input, float* output) {
  // LESSON 09 BEGIN: the mean of each output cell's window, by the definition
  const int64_t input_h = plane.input_h;
  ForEachCell(plane, output, [&](const AdaptiveWindow& rows, const AdaptiveWindow& columns) {
    float sum = 0.0f;
    for (int64_t ix = columns.begin; ix < columns.end; ++ix) {
      for (int64_t iy = rows.begin; iy < rows.end; ++iy) sum += input[ix * input_h + iy];
    }
    return sum / CellCount(rows, columns);
  });
  // LESSON 09 END
}

void AdaptiveAveragePool(const PoolingPlane& plane, const float* input, float* output) {
  // LESSON 09 BEGIN: the same means, each column's run summed by SumRun
  const int64_t input_h = plane.input_h;
  ForEachCell(plane, output, [&](const AdaptiveWindow& rows, const AdaptiveWindow& columns) {
    float sum = 0.0f;
    if (rows.begin == 0 && rows.end == input_h) {  // whole columns: one run (a global pool)
      sum = SumRun(input + columns.begin * input_h, (columns.end - columns.begin) * input_h);
    } else {
      for (int64_t ix = columns.begin; ix < columns.end; ++ix) {
        sum += SumRun(input + ix * input_h + rows.begin, rows.end - rows.begin);
      }
    }
    return sum / CellCount(rows, columns);
  });
  // LESSON 09 END
}

void GlobalAveragePool(const float* input, int64_t channels, int64_t area, float* output) {
  // LESSON 09 BEGIN: each plane's mean, the plane summed as one run by SumRun
  const float count = static_cast<float>(area);  // divided, not multiplied by 1 / area: as above
  for (int64_t channel = 0; channel < channels; ++channel) {
    output[channel] = SumRun(input + channel * area, area) / count;
  }
  // LESSON 09 END
}

void AdaptiveMaxPool(const PoolingPlane& plane, const float* input, float* output) {
  const int64_t input_h = plane.input_h;
  ForEachCell(plane, output, [&](const AdaptiveWindow& rows, const AdaptiveWindow& columns) {
    float best = input[columns.begin * input_h + rows.begin];
    for (int64_t ix = columns.begin; ix < columns.end && !std::isnan(best); ++ix) {
      for (int64_t iy = rows.begin; iy < rows.end; ++iy) {
        const float value = input[ix * input_h + iy];
        if (value > best || std::isnan(value)) {
          best = value;
          if (std::isnan(value)) break;
        }
      }
    }
    return best;
  });
}

}  // namespace lumen
