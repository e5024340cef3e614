// The attention kernel against its reference (the definition, one query row of one head at a
// time, in double): several sizes (one head, many heads, more query rows than one block, keys the
// masks do not cover), float and bool masks (per head or shared, with a fully masked row), key
// padding, weights averaged or per head, on 1 and 2 threads.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "base/compute_context.hpp"
#include "base/thread_pool.hpp"
#include "base/workspace.hpp"
#include "kernel/attention.hpp"
#include "support/kernel_testing.hpp"

namespace lumen {
namespace {

using test_support::ExpectAgree;
using test_support::RandomValues;

// One case: the sizes and which extras it uses.
struct AttentionCase {
  std::string name;
  int items, heads, head_dim, queries, sources, extra_keys;
  int block_rows;
  enum Mask { kNoMask, kFloatMask, kBoolMask, kBoolMaskPerHead } mask = kNoMask;
  enum Padding { kNoPadding, kFloatPadding, kBoolPadding } padding = kNoPadding;
  enum Weights { kNoWeights, kAveraged, kPerHead } weights = kNoWeights;
};

const std::vector<AttentionCase> kCases = {
    {"one_head", 1, 1, 8, 5, 7, 0, 5},
    {"heads_and_blocks", 2, 4, 6, 37, 11, 0, 16},
    {"float_mask_averaged", 2, 3, 4, 9, 9, 0, 4, AttentionCase::kFloatMask,
     AttentionCase::kNoPadding, AttentionCase::kAveraged},
    {"bool_mask_per_head_weights", 2, 2, 5, 6, 8, 0, 6, AttentionCase::kBoolMaskPerHead,
     AttentionCase::kNoPadding, AttentionCase::kPerHead},
    {"bool_padding_extra_keys", 3, 2, 4, 7, 5, 2, 3, AttentionCase::kBoolMask,
     AttentionCase::kBoolPadding, AttentionCase::kAveraged},
    {"float_padding", 2, 2, 8, 40, 33, 1, 40, AttentionCase::kNoMask, AttentionCase::kFloatPadding,
     AttentionCase::kNoWeights},
};

// Runs one case through Attend (on `threads` threads) and AttendReference and compares the
// outputs and the weights.
void CheckCase(const AttentionCase& c, int threads) {
  std::mt19937 generator(31);
  AttentionHeads problem;
  problem.items = c.items;
  problem.heads = c.heads;
  problem.head_dim = c.head_dim;
  problem.queries = c.queries;
  problem.sources = c.sources;
  problem.keys = c.sources + c.extra_keys;
  const size_t embed = static_cast<size_t>(c.heads) * c.head_dim;
  const size_t query_tokens = static_cast<size_t>(c.items) * c.queries;
  const size_t key_rows = static_cast<size_t>(c.items) * problem.keys;
  const std::vector<float> q = RandomValues(query_tokens * embed, &generator, -2.0f, 2.0f);
  const std::vector<float> k = RandomValues(key_rows * embed, &generator, -2.0f, 2.0f);
  const std::vector<float> v = RandomValues(key_rows * embed, &generator);
  problem.q = q.data();
  problem.k = k.data();
  problem.v = v.data();

  std::vector<float> mask;
  if (c.mask != AttentionCase::kNoMask) {
    const bool per_head = c.mask == AttentionCase::kBoolMaskPerHead;
    const size_t slices = per_head ? static_cast<size_t>(c.items) * c.heads : 1;
    mask = RandomValues(slices * c.queries * c.sources, &generator);
    problem.mask_is_bool = c.mask != AttentionCase::kFloatMask;
    if (problem.mask_is_bool) {
      for (float& value : mask) value = value > 0.3f ? 1.0f : 0.0f;
      // Query row 1 of the first slice masks every key: NaN in both kernels, as in PyTorch.
      for (int s = 0; s < c.sources; ++s) mask[static_cast<size_t>(s) * c.queries + 1] = 1.0f;
    }
    problem.mask = mask.data();
    problem.mask_per_head = per_head;
  }
  std::vector<float> padding;
  if (c.padding != AttentionCase::kNoPadding) {
    padding = RandomValues(static_cast<size_t>(c.items) * c.sources, &generator);
    problem.padding_is_bool = c.padding == AttentionCase::kBoolPadding;
    if (problem.padding_is_bool) {
      for (float& value : padding) value = value > 0.5f ? 1.0f : 0.0f;
    }
    problem.padding = padding.data();
  }
  const size_t weight_count = c.weights == AttentionCase::kNoWeights
                                  ? 0
                                  : static_cast<size_t>(c.items) *
                                        (c.weights == AttentionCase::kPerHead ? c.heads : 1) *
                                        c.queries * problem.keys;
  problem.average_weights = c.weights != AttentionCase::kPerHead;

  std::vector<float> reference_out(query_tokens * embed, -7.0f);
  std::vector<float> reference_weights(weight_count, -7.0f);
  problem.attended = reference_out.data();
  problem.weights = weight_count > 0 ? reference_weights.data() : nullptr;
  AttendReference(problem);

  ThreadPool pool(threads);
  Workspace workspace(threads);
  ReserveAttentionScratch(problem, c.block_rows, &workspace);
  std::vector<float> fast_out(query_tokens * embed, -7.0f);
  std::vector<float> fast_weights(weight_count, -7.0f);
  problem.attended = fast_out.data();
  problem.weights = weight_count > 0 ? fast_weights.data() : nullptr;
  Attend(problem, c.block_rows, ComputeContext{&pool, &workspace});

  const std::string where = c.name + " on " + std::to_string(threads) + " thread(s)";
  // Float products and FastExp against double sums and std::exp.
  ExpectAgree(fast_out, "Attend", reference_out, "AttendReference", 1e-5f, 1e-4f, where);
  ExpectAgree(fast_weights, "Attend's weights", reference_weights, "AttendReference's weights",
              1e-6f, 1e-4f, where);
}

TEST(AttentionKernel, MatchesReferenceOnOneAndTwoThreads) {
  for (const AttentionCase& c : kCases) {
    for (int threads : {1, 2}) CheckCase(c, threads);
  }
}

TEST(AttentionKernel, NoKeysGiveZeros) {
  AttentionHeads problem;
  problem.items = 2;
  problem.heads = 2;
  problem.head_dim = 3;
  problem.queries = 4;
  std::vector<float> out(2 * 4 * 6, 5.0f);
  problem.attended = out.data();
  Workspace workspace(1);
  Attend(problem, 4, ComputeContext{nullptr, &workspace});
  for (float value : out) EXPECT_EQ(value, 0.0f);
}

}  // namespace
}  // namespace lumen
