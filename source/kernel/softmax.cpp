#include "kernel/softmax.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "kernel/lane_groups.hpp"
#include "math/fast_exp.hpp"

namespace lumen {
namespace {

// Slices one call normalises at most: their maxima and sums live on the stack.
constexpr size_t kLanes = 256;

// Below this many elements nn.Softmax normalises its slices on one thread.
constexpr size_t kParallelElements = 1 << 14;

constexpr float kNegativeInfinity = -std::numeric_limits<float>::infinity();

// How the exponentials are taken: exactly (nn.Softmax, which divides by the sum), or on FastExp
// (attention, which multiplies by the sum's reciprocal; FastExp clamps its argument, so a masked
// -inf score is given a weight of exactly 0 by hand).
enum class Exponential { kExact, kFast };

// What the lanes are written as: the softmax, or its logarithm (nn.LogSoftmax), computed as
// (x - max) - log(sum) so that a tiny probability keeps its digits instead of underflowing to 0.
enum class Result { kSoftmax, kLogSoftmax };

// Softmax (or log-softmax) of `lanes` (at most kLanes) neighbouring slices of `extent` elements
// each: element e of lane l at input[e * stride + l], written to output[e * stride + l] (kFast:
// in place, `input` must be `output`). Three passes over the rows of lanes: the maxima, the
// exponentials with their sums, the normalisation.
template <Exponential kExponential, Result kResult = Result::kSoftmax>
void SoftmaxLanes(const float* input, float* output, size_t extent, size_t stride, size_t lanes) {
  // LESSON 12 BEGIN: subtract each lane's maximum, exponentiate, divide by the sum (along extent)
  float maximum[kLanes];
  float sum[kLanes];
  std::fill(maximum, maximum + lanes, kNegativeInfinity);
  std::fill(sum, sum + lanes, 0.0f);
  for (size_t e = 0; e < extent; ++e) {
    const float* row = input + e * stride;
    // std::max's own rule written as one select and an unconditional store: GCC keeps
    // `maximum[lane] = std::max(maximum[lane], row[lane])` a conditional scalar store and does not
    // vectorise it (ViT's attention spent 4% more time here than with the select).
    for (size_t lane = 0; lane < lanes; ++lane) {
      const float current = maximum[lane];
      maximum[lane] = current < row[lane] ? row[lane] : current;
    }
  }
  for (size_t e = 0; e < extent; ++e) {
    float* out = output + e * stride;
    // Attention's softmax works in place: one pointer, so the loop needs no check for overlap.
    const float* row = kExponential == Exponential::kFast ? out : input + e * stride;
    for (size_t lane = 0; lane < lanes; ++lane) {
      const float shifted = row[lane] - maximum[lane];
      float weight;
      if constexpr (kExponential == Exponential::kExact) {
        weight = std::exp(shifted);
      } else {
        weight = shifted == kNegativeInfinity ? 0.0f : FastExp(shifted);
      }
      // The log-softmax reads its input again in the last pass: the output (maybe the same
      // memory) is written only there.
      if constexpr (kResult == Result::kSoftmax) out[lane] = weight;
      sum[lane] += weight;
    }
  }
  if constexpr (kResult == Result::kLogSoftmax) {
    for (size_t lane = 0; lane < lanes; ++lane) sum[lane] = std::log(sum[lane]);
    for (size_t e = 0; e < extent; ++e) {
      const float* row = input + e * stride;
      float* out = output + e * stride;
      for (size_t lane = 0; lane < lanes; ++lane) out[lane] = row[lane] - maximum[lane] - sum[lane];
    }
  } else if constexpr (kExponential == Exponential::kExact) {
    for (size_t e = 0; e < extent; ++e) {
      float* out = output + e * stride;
      for (size_t lane = 0; lane < lanes; ++lane) out[lane] /= sum[lane];
    }
  } else {
    for (size_t lane = 0; lane < lanes; ++lane) sum[lane] = 1.0f / sum[lane];
    for (size_t e = 0; e < extent; ++e) {
      float* out = output + e * stride;
      for (size_t lane = 0; lane < lanes; ++lane) out[lane] *= sum[lane];
    }
  }
  // LESSON 12 END
}

// Both nn.Softmax's and nn.LogSoftmax's kernel: the lanes of every slice along the middle of
// `split`.
template <Result kResult>
void NormalizeSlices(const AxisSplit& split, const float* input, float* output, ThreadPool* pool) {
  ForEachLaneGroup<kLanes>(split, kParallelElements, pool, [&](size_t base, size_t lanes) {
    SoftmaxLanes<Exponential::kExact, kResult>(input + base, output + base, split.extent,
                                               split.inner, lanes);
  });
}

// The definition of both, one slice at a time, in double.
void NormalizeSlicesReference(const AxisSplit& split, const float* input, float* output,
                              Result result) {
  ForEachSlice(split, [&](size_t first) {
    double maximum = -std::numeric_limits<double>::infinity();
    for (size_t e = 0; e < split.extent; ++e) {
      maximum = std::max<double>(maximum, input[first + e * split.inner]);
    }
    double sum = 0.0;
    for (size_t e = 0; e < split.extent; ++e) {
      sum += std::exp(input[first + e * split.inner] - maximum);
    }
    for (size_t e = 0; e < split.extent; ++e) {
      const size_t at = first + e * split.inner;
      const double shifted = input[at] - maximum;
      output[at] = static_cast<float>(result == Result::kLogSoftmax ? shifted - std::log(sum)
                                                                    : std::exp(shifted) / sum);
    }
  });
}

}  // namespace

void SoftmaxSlices(const AxisSplit& split, const float* input, float* output, ThreadPool* pool) {
  NormalizeSlices<Result::kSoftmax>(split, input, output, pool);
}

void LogSoftmaxSlices(const AxisSplit& split, const float* input, float* output, ThreadPool* pool) {
  NormalizeSlices<Result::kLogSoftmax>(split, input, output, pool);
}

void SoftmaxSlicesReference(const AxisSplit& split, const float* input, float* output) {
  NormalizeSlicesReference(split, input, output, Result::kSoftmax);
}

void LogSoftmaxSlicesReference(const AxisSplit& split, const float* input, float* output) {
  NormalizeSlicesReference(split, input, output, Result::kLogSoftmax);
}

void SoftmaxRows(float* scores, int rows, int columns) {
  // Row i's elements are `rows` apart: the rows are the lanes.
  for (int first = 0; first < rows; first += static_cast<int>(kLanes)) {
    SoftmaxLanes<Exponential::kFast>(scores + first, scores + first, static_cast<size_t>(columns),
                                     static_cast<size_t>(rows),
                                     std::min(kLanes, static_cast<size_t>(rows - first)));
  }
}

}  // namespace lumen
