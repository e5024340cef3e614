// The normalisation kernel against a direct double-precision loop over the same group and affine
// description, on contiguous groups, lanes, pooled lanes and every statistic, on 1 and 2 threads.
// (The layers' tests compare the layers with PyTorch; this one covers layouts and sizes those
// cases do not reach, such as several lane blocks, large groups and the parallel path.)
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernel/normalization.hpp"
#include "support/case_runner.hpp"
#include "support/kernel_testing.hpp"

namespace lumen {
namespace {

using test_support::ExpectClose;
using test_support::RandomValues;
using test_support::TestContext;

// The affine index of element (o, e, i), straight from NormalizationAffine's definition.
size_t AffineIndex(const NormalizationAffine& affine, size_t o, size_t e, size_t i) {
  return (o % affine.outer_period) * affine.outer_step +
         (e / affine.extent_block) * affine.extent_step + i * affine.lane_step;
}

// What NormalizeGroups must compute, group by group, in double.
std::vector<float> Reference(const std::vector<float>& x, const NormalizationGroups& groups,
                             const NormalizationSpec& spec, const NormalizationAffine& affine) {
  std::vector<float> y(x.size());
  const size_t per_group = groups.lanes_per_group;
  for (size_t o = 0; o < groups.outer; ++o) {
    for (size_t first = 0; first < groups.inner; first += per_group) {
      auto at = [&](size_t e, size_t lane) {
        return (o * groups.extent + e) * groups.inner + first + lane;
      };
      const double n = static_cast<double>(groups.extent * per_group);
      double sum = 0, squares = 0, norm = 0;
      for (size_t e = 0; e < groups.extent; ++e) {
        for (size_t lane = 0; lane < per_group; ++lane) {
          const double v = x[at(e, lane)];
          sum += v;
          squares += v * v;
          if (std::isinf(spec.p)) {
            norm = std::max(norm, std::fabs(v));
          } else {
            norm += std::pow(std::fabs(v), double{spec.p});
          }
        }
      }
      double mean = 0, scale = 1;
      if (spec.statistic == NormalizationStatistic::kStandardize) {
        mean = sum / n;
        scale = 1 / std::sqrt(squares / n - mean * mean + spec.eps);
      } else if (spec.statistic == NormalizationStatistic::kRootMeanSquare) {
        scale = 1 / std::sqrt(squares / n + spec.eps);
      } else {
        if (!std::isinf(spec.p)) norm = std::pow(norm, 1.0 / spec.p);
        scale = 1 / std::max(norm, double{spec.eps});
      }
      for (size_t e = 0; e < groups.extent; ++e) {
        for (size_t lane = 0; lane < per_group; ++lane) {
          const size_t k = AffineIndex(affine, o, e, first + lane);
          double value = (x[at(e, lane)] - mean) * scale;
          if (affine.weight != nullptr) value *= affine.weight[k];
          if (affine.bias != nullptr) value += affine.bias[k];
          y[at(e, lane)] = static_cast<float>(value);
        }
      }
    }
  }
  return y;
}

// Runs the kernel on random data for `groups` on 1 and 2 threads and compares with Reference.
void ExpectMatchesReference(const NormalizationGroups& groups, const NormalizationSpec& spec,
                            NormalizationAffine affine, size_t weights, const std::string& what) {
  std::mt19937 generator(17);
  const size_t count = groups.outer * groups.extent * groups.inner;
  std::vector<float> x = RandomValues(count, &generator, -3.0f, 3.0f);
  for (float& v : x) v += 0.5f;  // a non-zero mean
  const std::vector<float> weight = RandomValues(weights, &generator, 0.5f, 1.5f);
  const std::vector<float> bias = RandomValues(weights, &generator, -0.2f, 0.2f);
  if (weights > 0) {
    affine.weight = weight.data();
    affine.bias = bias.data();
  }
  const std::vector<float> expected = Reference(x, groups, spec, affine);
  for (int threads : {1, 2}) {
    TestContext context(threads);
    context.prepare().workspace->Reserve(ScratchSlot::kFirst, NormalizationScratchSize(groups));
    std::vector<float> y(count);
    NormalizeGroups(x.data(), y.data(), groups, spec, affine, context.compute());
    ExpectClose(y, expected, 1e-5f, 1e-4f, what + " on " + std::to_string(threads) + " threads");
  }
}

TEST(NormalizationKernel, StandardizesContiguousGroupsWithOneWeightPerElement) {
  NormalizationAffine affine;
  affine.extent_step = 1;
  ExpectMatchesReference({37, 500, 1, 1}, {}, affine, 500, "rows of 500");
  ExpectMatchesReference({3, 7, 1, 1}, {}, NormalizationAffine(), 0, "no affine");
}

TEST(NormalizationKernel, StandardizesPlanesWithOneWeightPerChannel) {
  // GroupNorm on (2, 6, 9, 11) with 3 groups: blocks of 2 planes of 99.
  NormalizationAffine affine;
  affine.outer_period = 3;
  affine.outer_step = 2;
  affine.extent_block = 99;
  affine.extent_step = 1;
  ExpectMatchesReference({6, 2 * 99, 1, 1}, {}, affine, 6, "groups of planes");
}

TEST(NormalizationKernel, StandardizesLanesAcrossSeveralBlocks) {
  // LayerNorm over the last dimension of (3, 300, 24): 300 lanes, more than one block.
  NormalizationAffine affine;
  affine.extent_step = 1;
  ExpectMatchesReference({3, 24, 300, 1}, {}, affine, 24, "300 lanes");
  // Per-lane weights (InstanceNorm1d's channels) and pooled lanes (GroupNorm on (N, C, L)),
  // including groups wider than a block of lanes.
  NormalizationAffine per_lane;
  per_lane.lane_step = 1;
  ExpectMatchesReference({2, 9, 12, 1}, {}, per_lane, 12, "per-lane weights");
  ExpectMatchesReference({2, 9, 12, 4}, {}, per_lane, 12, "pooled lanes");
  ExpectMatchesReference({2, 5, 600, 300}, {}, per_lane, 600, "groups of 300 lanes");
}

TEST(NormalizationKernel, ComputesRootMeanSquareAndNorms) {
  NormalizationAffine affine;
  affine.extent_step = 1;
  const NormalizationSpec rms{NormalizationStatistic::kRootMeanSquare, 1e-6f};
  ExpectMatchesReference({40, 64, 1, 1}, rms, affine, 64, "rms rows");
  ExpectMatchesReference({2, 64, 130, 1}, rms, affine, 64, "rms lanes");
  for (float p : {1.0f, 2.0f, 3.0f, std::numeric_limits<float>::infinity()}) {
    const NormalizationSpec norm{NormalizationStatistic::kNorm, 1e-12f, p};
    ExpectMatchesReference({5, 33, 1, 1}, norm, NormalizationAffine(), 0,
                           "p=" + std::to_string(p) + " rows");
    ExpectMatchesReference({5, 33, 140, 1}, norm, NormalizationAffine(), 0,
                           "p=" + std::to_string(p) + " lanes");
  }
}

TEST(NormalizationKernel, ClampsASmallNormToEps) {
  const std::vector<float> x{0.0f, 0.0f, 1e-9f, 0.0f};
  std::vector<float> y(4);
  TestContext context;
  NormalizeGroups(x.data(), y.data(), {2, 2, 1, 1}, {NormalizationStatistic::kNorm, 1e-6f, 2.0f},
                  NormalizationAffine(), context.compute());
  ExpectClose(y, {0.0f, 0.0f, 1e-3f, 0.0f}, 0.0f, 1e-6f, "x / max(||x||, 1e-6)");
}

}  // namespace
}  // namespace lumen
