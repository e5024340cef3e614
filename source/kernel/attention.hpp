// The middle of multi-head attention: for every batch item and head, softmax(Q_h K_h^T + masks)
// V_h, from the projected queries, keys and values (nn.MultiheadAttention's layer does the
// projections before and after). Q, K, V and the result are "token matrices": column-major, one
// row per token (row item * tokens per item + token), one column per feature, so that head h's
// part is the plain column-major block of columns [h * head_dim, (h + 1) * head_dim).
#ifndef LUMEN_KERNEL_ATTENTION_HPP_
#define LUMEN_KERNEL_ATTENTION_HPP_

#include "base/compute_context.hpp"
#include "base/workspace.hpp"

namespace lumen {

// One attention's operands and sizes. Masks and weights use Lumen's tensor layout: each 2-D
// slice column-major (element (l, s) of an L x S slice at s * L + l).
struct AttentionHeads {
  int items = 0;     // N
  int heads = 0;     // H
  int head_dim = 0;  // d; E = H * d
  int queries = 0;   // L: query tokens per item
  int sources = 0;   // S: key tokens per item, the ones the masks cover
  int keys = 0;      // S plus the keys add_bias_kv and add_zero_attn append (no mask covers them)
  const float* q = nullptr;  // N*L x E, the queries already scaled by 1/sqrt(d)
  const float* k = nullptr;  // N*keys x E
  const float* v = nullptr;  // N*keys x E
  // attn_mask, added to the scores: one L x S slice, or N*H of them (item n, head h: n*H + h).
  const float* mask = nullptr;
  bool mask_per_head = false;
  bool mask_is_bool = false;  // a 1 masks the key (-inf) instead of adding 1
  // key_padding_mask, added to every query's score of key s of item n: element n + s * N.
  const float* padding = nullptr;
  bool padding_is_bool = false;
  // The attention weights, if wanted: (N, [H,] L, keys), averaged over the heads or per head.
  float* weights = nullptr;
  bool average_weights = true;
  float* attended = nullptr;  // N*L x E: each head's P V_h in its own columns
};

// Heads one task of Attend computes: all of them when it averages their weights into one output
// (`averaged_weights`: tasks of one item would otherwise add into the same place), else one.
int AttentionHeadsPerTask(int heads, bool averaged_weights);

// Reserves every thread's scratch Attend needs for blocks of `block_rows` query rows.
void ReserveAttentionScratch(const AttentionHeads& problem, int block_rows, Workspace* workspace);

// The fast kernel: one parallel task per (item, group of AttentionHeadsPerTask heads, block of
// `block_rows` query rows), each packing K_h^T and V_h and running both products on the packed
// GEMM, the softmax in between (SoftmaxRows). The scratch must be reserved as above.
void Attend(const AttentionHeads& problem, int block_rows, const ComputeContext& compute);

// The definition, one query row of one head at a time, in plain loops and double sums, with
// std::exp: the reference.
void AttendReference(const AttentionHeads& problem);

}  // namespace lumen

#endif  // LUMEN_KERNEL_ATTENTION_HPP_
