#include "kernel/normalization.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/thread_pool.hpp"

namespace lumen {
namespace {

// Neighbouring lanes handled together: enough for long vectorised inner loops, few enough that
// a task's rows stay in cache between the two passes.
constexpr size_t kLanes = 128;

// Below this many elements the groups are normalised on one thread.
constexpr size_t kParallelElements = 1 << 14;

// Lanes per task: whole groups, about kLanes of them, never more than there are.
size_t LaneBlock(const NormalizationGroups& groups) {
  const size_t per_group = groups.lanes_per_group;
  const size_t block = std::max<size_t>(1, kLanes / per_group) * per_group;
  return std::min(groups.inner, block);
}

// Running accumulators of one group: for kStandardize the sum and the sum of squares, for
// kRootMeanSquare the sum of squares, for kNorm the p-norm's running value (sum of |x|^p, the
// largest or smallest |x|, or the count of non-zeros).
struct Accumulator {
  double first = 0.0;
  double second = 0.0;
};

// The accumulator's starting value for `spec`.
Accumulator StartAccumulator(const NormalizationSpec& spec) {
  Accumulator start;
  if (spec.statistic == NormalizationStatistic::kNorm && std::isinf(spec.p) && spec.p < 0) {
    start.first = std::numeric_limits<double>::infinity();  // min |x| starts above everything
  }
  return start;
}

// Calls body(f) with f(accumulator, x) adding x into an accumulator as `spec` needs, compiled
// once per statistic so the accumulation loops vectorise.
template <typename Body>
void WithAccumulate(const NormalizationSpec& spec, Body body) {
  const double p = spec.p;
  switch (spec.statistic) {
    case NormalizationStatistic::kStandardize:
      body([](double& first, double& second, double x) {
        first += x;
        second += x * x;
      });
      return;
    case NormalizationStatistic::kRootMeanSquare:
      body([](double& /*first*/, double& second, double x) { second += x * x; });
      return;
    case NormalizationStatistic::kNorm:
      if (p == 2.0) {
        body([](double& /*first*/, double& second, double x) { second += x * x; });
      } else if (p == 1.0) {
        body([](double& first, double& /*second*/, double x) { first += std::fabs(x); });
      } else if (std::isinf(p) && p > 0) {
        body([](double& first, double& /*second*/, double x) {
          first = std::isnan(x) || std::fabs(x) > first ? std::fabs(x) : first;
        });
      } else if (std::isinf(p)) {
        body([](double& first, double& /*second*/, double x) {
          first = std::isnan(x) || std::fabs(x) < first ? std::fabs(x) : first;
        });
      } else if (p == 0.0) {
        body([](double& first, double& /*second*/, double x) { first += x != 0.0 ? 1.0 : 0.0; });
      } else {
        body([p](double& first, double& /*second*/, double x) {
          first += std::pow(std::fabs(x), p);
        });
      }
      return;
  }
}

// Adds the accumulator of some elements into that of others: sums add, the largest or smallest
// |x| (the infinity norms) is compared.
void Fold(const NormalizationSpec& spec, Accumulator* total, const Accumulator& part) {
  if (spec.statistic == NormalizationStatistic::kNorm && std::isinf(spec.p)) {
    const bool keep_larger = spec.p > 0;
    if (std::isnan(part.first) ||
        (keep_larger ? part.first > total->first : part.first < total->first)) {
      total->first = part.first;
    }
    return;
  }
  total->first += part.first;
  total->second += part.second;
}

// The group's mean (0 unless standardizing) and the factor that multiplies x - mean, from its
// accumulated values over `count` elements. The mean comes as two floats, mean + mean_low, and
// x - mean - mean_low is computed in that order: x - mean is exact for x near the mean, so a
// group whose mean is far larger than its spread (100 +- 0.01) keeps its precision, where one
// rounded float mean would shift every output by up to half its ulp over the deviation.
void FinishStatistic(const NormalizationSpec& spec, Accumulator accumulator, size_t count,
                     float* mean, float* mean_low, float* scale) {
  *mean_low = 0.0f;
  const double n = static_cast<double>(count);
  switch (spec.statistic) {
    case NormalizationStatistic::kStandardize: {
      // LESSON 12 BEGIN: LayerNorm's statistics: the mean and 1 / sqrt(variance + eps)
      const double average = accumulator.first / n;
      const double variance = std::max(accumulator.second / n - average * average, 0.0);
      *mean = static_cast<float>(average);
      *mean_low = static_cast<float>(average - double{*mean});
      *scale = static_cast<float>(1.0 / std::sqrt(variance + static_cast<double>(spec.eps)));
      return;
      // LESSON 12 END
    }
    case NormalizationStatistic::kRootMeanSquare:
      *mean = 0.0f;
      *scale = static_cast<float>(1.0 / std::sqrt(accumulator.second / n + double{spec.eps}));
      return;
    case NormalizationStatistic::kNorm: {
      const double p = spec.p;
      double norm = 0.0;
      if (p == 2.0) {
        norm = std::sqrt(accumulator.second);
      } else if (p == 1.0 || std::isinf(p) || p == 0.0) {
        norm = accumulator.first;
      } else {
        norm = std::pow(accumulator.first, 1.0 / p);
      }
      // PyTorch computes the norm in float, then divides by max(norm, eps).
      const float denominator = std::max(static_cast<float>(norm), spec.eps);
      *mean = 0.0f;
      *scale = 1.0f / denominator;
      return;
    }
  }
}

// The affine index of the elements of group `outer` before the extent and lane terms.
size_t OuterIndex(const NormalizationAffine& affine, size_t outer) {
  return (outer % affine.outer_period) * affine.outer_step;
}

// Normalises group `outer` when groups are contiguous (inner == 1).
template <bool kWeight, bool kBias, typename Accumulate>
void NormalizeContiguous(const float* input, float* output, size_t outer,
                         const NormalizationGroups& groups, const NormalizationSpec& spec,
                         const NormalizationAffine& affine, Accumulate accumulate) {
  const size_t extent = groups.extent;
  const float* x = input + outer * extent;
  float* y = output + outer * extent;
  // Pass 1. Independent partial accumulators, so the loop vectorises without reordering any one
  // of them; they are combined at the end.
  constexpr size_t kPartials = 8;
  const Accumulator start = StartAccumulator(spec);
  double first[kPartials];
  double second[kPartials];
  std::fill(first, first + kPartials, start.first);
  std::fill(second, second + kPartials, start.second);
  size_t e = 0;
  for (; e + kPartials <= extent; e += kPartials) {
    for (size_t j = 0; j < kPartials; ++j) accumulate(first[j], second[j], double{x[e + j]});
  }
  for (size_t j = 0; e < extent; ++e, ++j) accumulate(first[j], second[j], double{x[e]});
  Accumulator total = start;
  for (size_t j = 0; j < kPartials; ++j) Fold(spec, &total, {first[j], second[j]});
  float mean = 0.0f;
  float mean_low = 0.0f;
  float scale = 1.0f;
  FinishStatistic(spec, total, extent, &mean, &mean_low, &scale);
  // Pass 2.
  if (!kWeight && !kBias) {
    for (size_t k = 0; k < extent; ++k) y[k] = (x[k] - mean - mean_low) * scale;
    return;
  }
  const size_t base = OuterIndex(affine, outer);
  if (affine.extent_block == 1) {
    // One weight per element (LayerNorm).
    const float* weight = kWeight ? affine.weight + base : nullptr;
    const float* bias = kBias ? affine.bias + base : nullptr;
    const size_t step = affine.extent_step;
    for (size_t k = 0; k < extent; ++k) {
      float value = (x[k] - mean - mean_low) * scale;
      if (kWeight) value *= weight[k * step];
      if (kBias) value += bias[k * step];
      y[k] = value;
    }
    return;
  }
  // One weight per block of extent_block elements (a channel's plane).
  const size_t block = affine.extent_block;
  for (size_t start_of_block = 0, index = base; start_of_block < extent;
       start_of_block += block, index += affine.extent_step) {
    const float factor = kWeight ? scale * affine.weight[index] : scale;
    const float shift = kBias ? affine.bias[index] : 0.0f;
    const size_t end = std::min(extent, start_of_block + block);
    for (size_t k = start_of_block; k < end; ++k) {
      y[k] = (x[k] - mean - mean_low) * factor + shift;
    }
  }
}

// Normalises the groups of block `outer` whose lanes are [first_lane, first_lane + lanes).
template <bool kWeight, bool kBias, typename Accumulate>
void NormalizeLanes(const float* input, float* output, size_t outer, size_t first_lane,
                    size_t lanes, const NormalizationGroups& groups, const NormalizationSpec& spec,
                    const NormalizationAffine& affine, Accumulate accumulate, float* scratch) {
  const size_t extent = groups.extent;
  const size_t inner = groups.inner;
  auto* first = reinterpret_cast<double*>(scratch);
  double* second = first + lanes;
  auto* mean = reinterpret_cast<float*>(second + lanes);
  float* mean_low = mean + lanes;
  float* scale = mean_low + lanes;
  const Accumulator start = StartAccumulator(spec);
  std::fill(first, first + lanes, start.first);
  std::fill(second, second + lanes, start.second);
  const size_t base = outer * extent * inner + first_lane;
  // Pass 1: every row of the block adds into the accumulators of its lanes.
  for (size_t e = 0; e < extent; ++e) {
    const float* x = input + base + e * inner;
    for (size_t lane = 0; lane < lanes; ++lane)
      accumulate(first[lane], second[lane], double{x[lane]});
  }
  // Lanes that form one group together pool their accumulators first.
  const size_t per_group = groups.lanes_per_group;
  for (size_t group = 0; group < lanes; group += per_group) {
    Accumulator total{first[group], second[group]};
    for (size_t lane = group + 1; lane < group + per_group; ++lane) {
      Fold(spec, &total, {first[lane], second[lane]});
    }
    float group_mean = 0.0f;
    float group_mean_low = 0.0f;
    float group_scale = 1.0f;
    FinishStatistic(spec, total, extent * per_group, &group_mean, &group_mean_low, &group_scale);
    std::fill(mean + group, mean + group + per_group, group_mean);
    std::fill(mean_low + group, mean_low + group + per_group, group_mean_low);
    std::fill(scale + group, scale + group + per_group, group_scale);
  }
  // Pass 2.
  const size_t outer_index = OuterIndex(affine, outer);
  for (size_t e = 0; e < extent; ++e) {
    const float* x = input + base + e * inner;
    float* y = output + base + e * inner;
    if (!kWeight && !kBias) {
      for (size_t lane = 0; lane < lanes; ++lane) {
        y[lane] = (x[lane] - mean[lane] - mean_low[lane]) * scale[lane];
      }
      continue;
    }
    const size_t index = outer_index + (e / affine.extent_block) * affine.extent_step +
                         first_lane * affine.lane_step;
    if (affine.lane_step == 0) {
      // One weight for the whole row (LayerNorm over the last dimension: the row is dimension e).
      const float weight = kWeight ? affine.weight[index] : 1.0f;
      const float bias = kBias ? affine.bias[index] : 0.0f;
      for (size_t lane = 0; lane < lanes; ++lane) {
        y[lane] = (x[lane] - mean[lane] - mean_low[lane]) * scale[lane] * weight + bias;
      }
    } else {
      // One weight per lane (the lanes are channels).
      const size_t step = affine.lane_step;
      for (size_t lane = 0; lane < lanes; ++lane) {
        float value = (x[lane] - mean[lane] - mean_low[lane]) * scale[lane];
        if (kWeight) value *= affine.weight[index + lane * step];
        if (kBias) value += affine.bias[index + lane * step];
        y[lane] = value;
      }
    }
  }
}

template <bool kWeight, bool kBias>
void NormalizeAll(const float* input, float* output, const NormalizationGroups& groups,
                  const NormalizationSpec& spec, const NormalizationAffine& affine,
                  const ComputeContext& context) {
  const bool parallel = groups.outer * groups.extent * groups.inner >= kParallelElements;
  WithAccumulate(spec, [&](auto accumulate) {
    if (groups.inner == 1 && groups.lanes_per_group == 1) {
      ParallelFor(
          context.pool, static_cast<std::ptrdiff_t>(groups.outer),
          [&](std::ptrdiff_t outer) {
            NormalizeContiguous<kWeight, kBias>(input, output, static_cast<size_t>(outer), groups,
                                                spec, affine, accumulate);
          },
          Schedule::kStatic, parallel);
      return;
    }
    const size_t block = LaneBlock(groups);
    const size_t blocks_per_outer = (groups.inner + block - 1) / block;
    const size_t scratch_size = NormalizationScratchSize(groups);
    ParallelFor(
        context.pool, static_cast<std::ptrdiff_t>(groups.outer * blocks_per_outer),
        [&](std::ptrdiff_t task) {
          const size_t outer = static_cast<size_t>(task) / blocks_per_outer;
          const size_t first_lane = static_cast<size_t>(task) % blocks_per_outer * block;
          const size_t lanes = std::min(block, groups.inner - first_lane);
          float* scratch = context.Scratch(ScratchSlot::kFirst, scratch_size);
          NormalizeLanes<kWeight, kBias>(input, output, outer, first_lane, lanes, groups, spec,
                                         affine, accumulate, scratch);
        },
        Schedule::kStatic, parallel);
  });
}

}  // namespace

size_t NormalizationScratchSize(const NormalizationGroups& groups) {
  if (groups.inner == 1 && groups.lanes_per_group == 1) return 0;
  // Two double accumulators and three floats (mean, its low part, scale) per lane.
  return 7 * LaneBlock(groups);
}

void NormalizeGroups(const float* input, float* output, const NormalizationGroups& groups,
                     const NormalizationSpec& spec, const NormalizationAffine& affine,
                     const ComputeContext& context) {
  if (groups.outer == 0 || groups.extent == 0 || groups.inner == 0) return;
  const bool weight = affine.weight != nullptr;
  const bool bias = affine.bias != nullptr;
  if (weight && bias) {
    NormalizeAll<true, true>(input, output, groups, spec, affine, context);
  } else if (weight) {
    NormalizeAll<true, false>(input, output, groups, spec, affine, context);
  } else if (bias) {
    NormalizeAll<false, true>(input, output, groups, spec, affine, context);
  } else {
    NormalizeAll<false, false>(input, output, groups, spec, affine, context);
  }
}

}  // namespace lumen
