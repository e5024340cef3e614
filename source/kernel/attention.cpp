#include "kernel/attention.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "base/checked_math.hpp"
#include "kernel/softmax.hpp"
#include "math/packed_gemm.hpp"

namespace lumen {
namespace {

constexpr float kNegativeInfinity = -std::numeric_limits<float>::infinity();

// Memory offset in the weights output of (item, head, query row, key); `head` is 0 when the
// weights are averaged.
size_t WeightsOffset(const AttentionHeads& p, int item, int head, int row, int key) {
  const size_t heads = p.average_weights ? 1 : static_cast<size_t>(p.heads);
  const size_t slice = static_cast<size_t>(item) * heads + head;
  return (slice * p.keys + key) * p.queries + row;
}

// What attn_mask adds to a score: the value, or -inf where a bool mask holds a 1.
float MaskTerm(float value, bool is_bool) {
  return !is_bool ? value : value != 0.0f ? kNegativeInfinity : 0.0f;
}

// Adds attn_mask and key_padding_mask of (item, head) to the column-major rows x keys block
// `scores` of query rows [first_row, first_row + rows).
void AddMasks(const AttentionHeads& p, int item, int head, int first_row, int rows, float* scores) {
  if (p.mask != nullptr) {
    const size_t slice = p.mask_per_head ? static_cast<size_t>(item) * p.heads + head : 0;
    const float* mask_block = p.mask + slice * p.queries * p.sources + first_row;
    for (int s = 0; s < p.sources; ++s) {
      const float* mask_column = mask_block + static_cast<size_t>(s) * p.queries;
      float* column = scores + static_cast<size_t>(s) * rows;
      if (p.mask_is_bool) {
        for (int i = 0; i < rows; ++i) column[i] += MaskTerm(mask_column[i], true);
      } else {
        for (int i = 0; i < rows; ++i) column[i] += mask_column[i];
      }
    }
  }
  if (p.padding != nullptr) {
    for (int s = 0; s < p.sources; ++s) {
      const float add =
          MaskTerm(p.padding[item + static_cast<size_t>(s) * p.items], p.padding_is_bool);
      float* column = scores + static_cast<size_t>(s) * rows;
      for (int i = 0; i < rows; ++i) column[i] += add;
    }
  }
}

}  // namespace

int AttentionHeadsPerTask(int heads, bool averaged_weights) { return averaged_weights ? heads : 1; }

void ReserveAttentionScratch(const AttentionHeads& problem, int block_rows, Workspace* workspace) {
  workspace->Reserve(ScratchSlot::kFirst,
                     CheckedMultiply(static_cast<size_t>(block_rows), problem.keys, "scores"));
  workspace->Reserve(ScratchSlot::kSecond, PackedColumnsSize(problem.head_dim, problem.keys));
  workspace->Reserve(ScratchSlot::kThird, PackedColumnsSize(problem.keys, problem.head_dim));
  workspace->Reserve(ScratchSlot::kGemmPacking,
                     PackedGemmScratchSize(block_rows, problem.head_dim));
  workspace->Reserve(ScratchSlot::kGemmPacking, PackedGemmScratchSize(block_rows, problem.keys));
}

void Attend(const AttentionHeads& p, int block_rows, const ComputeContext& compute) {
  const int query_tokens = p.items * p.queries;
  const int key_rows = p.items * p.keys;
  // No keys (S = 0 without added ones): every product over keys is empty, so the heads give 0.
  if (p.keys == 0) {
    std::fill(p.attended, p.attended + static_cast<size_t>(query_tokens) * p.heads * p.head_dim,
              0.0f);
    return;
  }
  const int heads_per_task =
      AttentionHeadsPerTask(p.heads, p.weights != nullptr && p.average_weights);
  const int head_groups = p.heads / heads_per_task;
  const int blocks = (p.queries + block_rows - 1) / block_rows;
  ParallelFor(
      compute.pool, static_cast<std::ptrdiff_t>(p.items) * head_groups * blocks,
      [&](std::ptrdiff_t task) {
        const int block = static_cast<int>(task % blocks);
        const int group = static_cast<int>(task / blocks % head_groups);
        const int item = static_cast<int>(task / blocks / head_groups);
        const int first_row = block * block_rows;
        const int rows = std::min(block_rows, p.queries - first_row);
        float* scores =
            compute.Scratch(ScratchSlot::kFirst, static_cast<size_t>(block_rows) * p.keys);
        float* packed_k =
            compute.Scratch(ScratchSlot::kSecond, PackedColumnsSize(p.head_dim, p.keys));
        float* packed_v =
            compute.Scratch(ScratchSlot::kThird, PackedColumnsSize(p.keys, p.head_dim));
        if (p.weights != nullptr && p.average_weights) {
          for (int s = 0; s < p.keys; ++s) {
            float* column = p.weights + WeightsOffset(p, item, 0, first_row, s);
            std::fill(column, column + rows, 0.0f);
          }
        }
        for (int head = group * heads_per_task; head < (group + 1) * heads_per_task; ++head) {
          const size_t feature = static_cast<size_t>(head) * p.head_dim;
          const float* k_head = p.k + static_cast<size_t>(item) * p.keys + feature * key_rows;
          const float* v_head = p.v + static_cast<size_t>(item) * p.keys + feature * key_rows;
          // LESSON 12 BEGIN: scores = Q_h K_h^T for this block of query rows, as one GEMM
          PackColumns(k_head, key_rows, 1, p.head_dim, p.keys, packed_k);
          PackColumns(v_head, 1, key_rows, p.keys, p.head_dim, packed_v);
          const float* q_block =
              p.q + static_cast<size_t>(item) * p.queries + first_row + feature * query_tokens;
          PackedGemm(rows, q_block, query_tokens, PackedPanels(packed_k, p.head_dim, p.keys),
                     scores, rows, compute);
          // LESSON 12 END
          AddMasks(p, item, head, first_row, rows, scores);
          SoftmaxRows(scores, rows, p.keys);
          if (p.weights != nullptr) {
            const float share = p.average_weights ? 1.0f / p.heads : 1.0f;
            const int weight_head = p.average_weights ? 0 : head;
            for (int s = 0; s < p.keys; ++s) {
              float* column = p.weights + WeightsOffset(p, item, weight_head, first_row, s);
              const float* weight = scores + static_cast<size_t>(s) * rows;
              if (p.average_weights) {
                for (int i = 0; i < rows; ++i) column[i] += weight[i] * share;
              } else {
                std::copy(weight, weight + rows, column);
              }
            }
          }
          // LESSON 12 BEGIN: this head's output = P V_h, into its columns of the token matrix
          PackedGemm(rows, scores, rows, PackedPanels(packed_v, p.keys, p.head_dim),
                     p.attended + static_cast<size_t>(item) * p.queries + first_row +
                         feature * query_tokens,
                     query_tokens, compute);
          // LESSON 12 END
        }
      },
      Schedule::kDynamic);
}

void AttendReference(const AttentionHeads& p) {
  const size_t query_tokens = static_cast<size_t>(p.items) * p.queries;
  const size_t key_rows = static_cast<size_t>(p.items) * p.keys;
  if (p.weights != nullptr && p.average_weights) {
    for (int item = 0; item < p.items; ++item) {
      for (int row = 0; row < p.queries; ++row) {
        for (int s = 0; s < p.keys; ++s) p.weights[WeightsOffset(p, item, 0, row, s)] = 0.0f;
      }
    }
  }
  std::vector<double> scores(p.keys);
  for (int item = 0; item < p.items; ++item) {
    for (int head = 0; head < p.heads; ++head) {
      const size_t feature = static_cast<size_t>(head) * p.head_dim;
      for (int row = 0; row < p.queries; ++row) {
        const size_t query = static_cast<size_t>(item) * p.queries + row;
        // The scores: query . key, plus the masks for the keys they cover.
        for (int s = 0; s < p.keys; ++s) {
          const size_t key = static_cast<size_t>(item) * p.keys + s;
          double score = 0.0;
          for (int f = 0; f < p.head_dim; ++f) {
            score += static_cast<double>(p.q[query + (feature + f) * query_tokens]) *
                     p.k[key + (feature + f) * key_rows];
          }
          if (s < p.sources && p.mask != nullptr) {
            const size_t slice = p.mask_per_head ? static_cast<size_t>(item) * p.heads + head : 0;
            score += MaskTerm(p.mask[(slice * p.sources + s) * p.queries + row], p.mask_is_bool);
          }
          if (s < p.sources && p.padding != nullptr) {
            score +=
                MaskTerm(p.padding[item + static_cast<size_t>(s) * p.items], p.padding_is_bool);
          }
          scores[s] = score;
        }
        // The softmax: a row of only -inf gives NaN (-inf - -inf), as in PyTorch.
        const double maximum = *std::max_element(scores.begin(), scores.end());
        double sum = 0.0;
        for (double& score : scores) {
          score = std::exp(score - maximum);
          sum += score;
        }
        for (double& score : scores) score /= sum;
        // The weights and the output: P V_h.
        for (int s = 0; s < p.keys && p.weights != nullptr; ++s) {
          if (p.average_weights) {
            p.weights[WeightsOffset(p, item, 0, row, s)] += static_cast<float>(scores[s] / p.heads);
          } else {
            p.weights[WeightsOffset(p, item, head, row, s)] = static_cast<float>(scores[s]);
          }
        }
        for (int f = 0; f < p.head_dim; ++f) {
          double value = 0.0;
          for (int s = 0; s < p.keys; ++s) {
            value +=
                scores[s] * p.v[static_cast<size_t>(item) * p.keys + s + (feature + f) * key_rows];
          }
          p.attended[query + (feature + f) * query_tokens] = static_cast<float>(value);
        }
      }
    }
  }
}

}  // namespace lumen
