// The one kernel behind every normalisation layer (LayerNorm, RMSNorm, GroupNorm, InstanceNorm,
// F.normalize): split the data into groups, compute one statistic per group, rescale each
// element, optionally apply a per-channel weight and bias.
//
// The layers differ only in which elements form a group and which weight an element gets, so
// they describe that (NormalizationGroups, NormalizationAffine) and this kernel does the work in
// two passes over the data: one to accumulate the statistic, one to write the output.
//
// Where a group lives in memory. A tensor's memory is row-major with its last two dimensions
// swapped (tensor.hpp), so a group is not always contiguous: LayerNorm over the last dimension of
// a (B, S, D) tensor normalises D values that lie S apart. Such groups are processed as "lanes":
// neighbouring groups are interleaved, so the kernel works on a block of neighbouring groups at
// once and every inner loop still runs over contiguous memory.
#ifndef LUMEN_KERNEL_NORMALIZATION_HPP_
#define LUMEN_KERNEL_NORMALIZATION_HPP_

#include <cstddef>

#include "base/compute_context.hpp"
#include "base/workspace.hpp"

namespace lumen {

// What is computed per group, and how each element is rescaled by it.
enum class NormalizationStatistic {
  kStandardize,     // (x - mean) / sqrt(variance + eps), biased variance (LayerNorm, GroupNorm)
  kRootMeanSquare,  // x / sqrt(mean(x^2) + eps) (RMSNorm)
  kNorm,            // x / max(||x||_p, eps) (F.normalize)
};

// Which groups the data is split into: group (o, i), for o < outer and i < inner, holds the
// `extent` values at memory (o * extent + e) * inner + i, e < extent. When lanes_per_group > 1,
// that many consecutive lanes i form one group together (GroupNorm on an (N, C, L) tensor, whose
// channels are the lanes); inner must then be a multiple of it.
struct NormalizationGroups {
  size_t outer = 0;
  size_t extent = 0;
  size_t inner = 1;
  size_t lanes_per_group = 1;
};

// The statistic with its constants.
struct NormalizationSpec {
  NormalizationStatistic statistic = NormalizationStatistic::kStandardize;
  float eps = 1e-5f;
  float p = 2.0f;  // the norm's order for kNorm (any float, +-inf included)
};

// An optional elementwise affine step after normalising: y = y * weight[k] + bias[k]. The index k
// of the element at (o, e, i) is
//     (o % outer_period) * outer_step + (e / extent_block) * extent_step + i * lane_step,
// which covers LayerNorm (k = e), GroupNorm and InstanceNorm on contiguous planes (k = the channel
// of the plane e lies in) and InstanceNorm on channels interleaved as lanes (k = i).
struct NormalizationAffine {
  const float* weight = nullptr;  // null: no weight (as if 1)
  const float* bias = nullptr;    // null: no bias (as if 0)
  size_t outer_period = 1;
  size_t outer_step = 0;
  size_t extent_block = 1;
  size_t extent_step = 0;
  size_t lane_step = 0;
};

// Floats of per-thread scratch (ScratchSlot::kFirst) that NormalizeGroups needs for `groups`:
// reserve it in Prepare so that Forward does not allocate.
size_t NormalizationScratchSize(const NormalizationGroups& groups);

// Normalises every group of `input` into `output` (which may be the same memory), applying
// `affine`, spread over the context's threads when there is enough work. Statistics are
// accumulated in double, so one pass gives the variance without cancellation.
void NormalizeGroups(const float* input, float* output, const NormalizationGroups& groups,
                     const NormalizationSpec& spec, const NormalizationAffine& affine,
                     const ComputeContext& context);

}  // namespace lumen

#endif  // LUMEN_KERNEL_NORMALIZATION_HPP_
