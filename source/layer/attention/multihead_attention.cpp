// nn.MultiheadAttention at inference: in-projections, softmax(Q K^T / sqrt(d) + masks) V per head,
// out-projection, and optionally the attention weights (averaged over heads, or per head).
//
// pnnx writes the module as one op. Its data inputs are (query) for self-attention, (query, key)
// when key and value are one tensor, or (query, key, value); masks are further inputs marked by
// role (`$attn_mask=1`, `$key_padding_mask=...`): float masks are added to the scores, and a mask
// the file declares bool masks the keys where it is 1, as PyTorch does. Weights are
// in_proj_weight (3E x E), or q/k/v_proj_weight when kdim or vdim differ from embed_dim, plus the
// biases and out_proj.
//
// Every product runs on the packed GEMM, in the layout it reads best: each projection writes a
// "token matrix" (rows = the N*L tokens, column-major, so that one feature of every token is
// contiguous), where a head's queries, keys and values are plain column-major blocks. The
// in-projection is one GEMM over all tokens (one for q, k and v together in self-attention);
// then each task (a batch item, a head or all heads, a block of query rows) packs K_h^T and V_h,
// multiplies Q_h by K_h^T, adds the masks, takes the softmax of each row, and multiplies by V_h
// into the output token matrix (kernel/attention.hpp: Attend, the inner loop), which the
// out-projection multiplies in one GEMM more.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "base/checked_math.hpp"
#include "kernel/attention.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "math/packed_gemm.hpp"

namespace lumen {
namespace {

// Query rows one task handles at most: its scores (rows x keys) stay in the L2 cache.
constexpr int kMaxBlockRows = 128;

// How a sequence operand is laid out.
enum class SequenceOrder {
  kUnbatched,      // (L, E)
  kBatchFirst,     // (N, L, E)
  kSequenceFirst,  // (L, N, E)
};

// Per session and shape: the sizes, and the buffers that live through one run.
struct AttentionState : LayerState {
  SequenceOrder order = SequenceOrder::kBatchFirst;
  int batch = 0;                    // N
  int target = 0;                   // L, query tokens per item
  int source = 0;                   // S, key tokens per item
  int keys = 0;                     // S plus the keys add_bias_kv and add_zero_attn append
  int block_rows = 0;               // query rows per task
  std::vector<float> query_tokens;  // gathered inputs, when the input is not a token matrix
  std::vector<float> key_tokens;
  std::vector<float> value_tokens;
  std::vector<float> projected;  // Q (NL x E), then K and V (N*keys x E), token matrices
  std::vector<float> attended;   // the heads' outputs side by side (NL x E)
  std::vector<float> result;     // the out-projection before it is scattered (sequence-first)

  size_t bytes() const override {
    return (query_tokens.size() + key_tokens.size() + value_tokens.size() + projected.size() +
            attended.size() + result.size()) *
           sizeof(float);
  }
};

// c[i + j * ldc] += bias[j] for an m x n column-major block.
void AddColumnBias(const float* bias, int m, int n, float* c, int ldc) {
  for (int j = 0; j < n; ++j) {
    float* column = c + static_cast<size_t>(j) * ldc;
    for (int i = 0; i < m; ++i) column[i] += bias[j];
  }
}

}  // namespace

// nn.MultiheadAttention (see the top of this file).
class MultiheadAttentionLayer : public Layer {
 public:
  // Reads the sizes and weights; packs the projections once (the query's scaled by 1/sqrt(d)).
  explicit MultiheadAttentionLayer(const LayerConfig& config) : Layer(config) {
    embed_ = config.IntParam("embed_dim");
    heads_ = config.IntParam("num_heads");
    if (embed_ < 1 || heads_ < 1 || embed_ % heads_ != 0) {
      Fail(Concat("embed_dim ", embed_, " must be a positive multiple of num_heads ", heads_));
    }
    head_dim_ = embed_ / heads_;
    key_dim_ = config.IntParam("kdim", embed_);
    value_dim_ = config.IntParam("vdim", embed_);
    if (key_dim_ < 1 || value_dim_ < 1) {
      Fail(Concat("kdim ", key_dim_, " and vdim ", value_dim_, " must be positive"));
    }
    batch_first_ = config.BoolParam("batch_first", false);
    outputs_ = config.output_count();
    average_weights_ = config.BoolParam("average_attn_weights", true);
    zero_attention_ = config.BoolParam("add_zero_attn", false);
    mask_input_ = config.InputIndexOfRole("attn_mask");
    padding_input_ = config.InputIndexOfRole("key_padding_mask");
    // A mask the file declares bool (or uint8, which PyTorch reads as bool) arrives as 0/1
    // floats: 1 masks the key (-inf) instead of adding 1.
    const auto is_bool = [&](int input) {
      const DataType type = input >= 0 ? config.InputType(input) : DataType::kUnknown;
      return type == DataType::kBool || type == DataType::kUInt8;
    };
    mask_is_bool_ = is_bool(mask_input_);
    padding_is_bool_ = is_bool(padding_input_);
    for (int i = 0; i < static_cast<int>(config.input_count()); ++i) {
      if (i != mask_input_ && i != padding_input_) data_inputs_.push_back(i);
    }
    if (data_inputs_.empty() || data_inputs_.size() > 3) {
      Fail(Concat("expected 1 to 3 inputs besides the masks (query, key, value), got ",
                  data_inputs_.size()));
    }
    if (data_inputs_.size() == 2 && key_dim_ != value_dim_) {
      Fail(Concat("one input serves as key and value, but kdim ", key_dim_, " != vdim ",
                  value_dim_));
    }
    if (data_inputs_.size() == 1 && (key_dim_ != embed_ || value_dim_ != embed_)) {
      Fail(Concat("self-attention needs kdim and vdim equal to embed_dim ", embed_, ", got ",
                  key_dim_, " and ", value_dim_));
    }
    if (config.output_count() < 1 || config.output_count() > 2) {
      Fail(Concat("expected 1 or 2 outputs (output, attention weights), got ",
                  config.output_count()));
    }

    const size_t e = static_cast<size_t>(embed_);
    const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim_));
    std::vector<float> q, k, v;  // row-major (E, in) each
    if (config.HasAttribute("in_proj_weight") && key_dim_ == embed_ && value_dim_ == embed_) {
      const std::vector<float> w = config.AttributeFloats("in_proj_weight", {3 * embed_, embed_});
      q.assign(w.begin(), w.begin() + e * e);
      k.assign(w.begin() + e * e, w.begin() + 2 * e * e);
      v.assign(w.begin() + 2 * e * e, w.end());
    } else {
      q = config.AttributeFloats("q_proj_weight", {embed_, embed_});
      k = config.AttributeFloats("k_proj_weight", {embed_, key_dim_});
      v = config.AttributeFloats("v_proj_weight", {embed_, value_dim_});
    }
    for (float& value : q) value *= scale;
    in_bias_.assign(3 * e, 0.0f);
    if (config.HasAttribute("in_proj_bias")) {
      in_bias_ = config.AttributeFloats("in_proj_bias", {3 * embed_});
      for (size_t i = 0; i < e; ++i) in_bias_[i] *= scale;
    }
    if (config.BoolParam("add_bias_kv", false)) {
      bias_k_ = config.AttributeFloats("bias_k", {1, 1, embed_});
      bias_v_ = config.AttributeFloats("bias_v", {1, 1, embed_});
    }
    const int extra_keys = (bias_k_.empty() ? 0 : 1) + (zero_attention_ ? 1 : 0);
    // A row-major (E, in) weight read column-major is W^T, the (in x E) right-hand side.
    if (data_inputs_.size() == 1 && extra_keys == 0) {
      std::vector<float> qkv = q;
      qkv.insert(qkv.end(), k.begin(), k.end());
      qkv.insert(qkv.end(), v.begin(), v.end());
      qkv_weights_ = PackedMatrix(qkv.data(), embed_, 3 * embed_, embed_);
    } else {
      q_weights_ = PackedMatrix(q.data(), embed_, embed_, embed_);
      k_weights_ = PackedMatrix(k.data(), key_dim_, embed_, key_dim_);
      v_weights_ = PackedMatrix(v.data(), value_dim_, embed_, value_dim_);
    }
    const std::vector<float> out = config.AttributeFloats("out_proj.weight", {embed_, embed_});
    out_weights_ = PackedMatrix(out.data(), embed_, embed_, embed_);
    out_bias_.assign(e, 0.0f);
    if (config.HasAttribute("out_proj.bias")) {
      out_bias_ = config.AttributeFloats("out_proj.bias", {embed_});
    }
  }

  // The query's shape, and the weights' (N, L, S+extra keys), per head when not averaged.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, data_inputs_.size() + (mask_input_ >= 0) + (padding_input_ >= 0));
    const Shape& query = input_shapes[data_inputs_[0]];
    const Shape& key = input_shapes[data_inputs_[std::min<size_t>(1, data_inputs_.size() - 1)]];
    const Shape& value = input_shapes[data_inputs_.back()];
    const bool batched = query.size() == 3;
    const std::string layout = !batched ? "(L,E)" : batch_first_ ? "(N,L,E)" : "(L,N,E)";
    const auto check = [&](const Shape& shape, const char* what, int features) {
      if (shape.size() != query.size() || (shape.size() != 2 && shape.size() != 3) ||
          shape.back() != static_cast<uint32_t>(features)) {
        Fail(Concat("expected ", what, " of shape ", layout, " with ", features, " features, got ",
                    ShapeToString(shape)));
      }
    };
    check(query, "a query", embed_);
    check(key, "a key", key_dim_);
    check(value, "a value", value_dim_);
    const uint32_t batch = !batched ? 1 : batch_first_ ? query[0] : query[1];
    const uint32_t target = batch_first_ && batched ? query[1] : query[0];
    const auto batch_of = [&](const Shape& s) { return !batched ? 1 : batch_first_ ? s[0] : s[1]; };
    const auto length_of = [&](const Shape& s) { return batch_first_ && batched ? s[1] : s[0]; };
    const uint32_t source = length_of(key);
    if (batch_of(key) != batch || batch_of(value) != batch || length_of(value) != source) {
      Fail(Concat("query ", ShapeToString(query), ", key ", ShapeToString(key), " and value ",
                  ShapeToString(value), " do not agree on the batch and key counts (layout ",
                  layout, ")"));
    }
    if (mask_input_ >= 0) {
      const Shape& mask = input_shapes[mask_input_];
      const Shape two_d = {target, source};
      const Shape three_d = {batch * static_cast<uint32_t>(heads_), target, source};
      if (mask != two_d && mask != three_d) {
        Fail(Concat("expected attn_mask of shape ", ShapeToString(two_d), " or ",
                    ShapeToString(three_d), ", got ", ShapeToString(mask)));
      }
    }
    if (padding_input_ >= 0) {
      const Shape& mask = input_shapes[padding_input_];
      const Shape expected = batched ? Shape{batch, source} : Shape{source};
      if (mask != expected) {
        Fail(Concat("expected key_padding_mask of shape ", ShapeToString(expected), ", got ",
                    ShapeToString(mask)));
      }
    }
    std::vector<Shape> outputs = {query};
    if (output_count() == 2) {
      const uint32_t keys = source + (bias_k_.empty() ? 0 : 1) + (zero_attention_ ? 1 : 0);
      Shape weights = {target, keys};
      if (!average_weights_) weights.insert(weights.begin(), static_cast<uint32_t>(heads_));
      if (batched) weights.insert(weights.begin(), batch);
      ShapeElementCount(weights);
      outputs.push_back(weights);
    }
    return outputs;
  }

  // Sizes the token matrices and the query blocks, and reserves every thread's scratch.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                       const PrepareContext& context) const override {
    (void)output_shapes;
    auto state = std::make_unique<AttentionState>();
    const Shape& query = input_shapes[data_inputs_[0]];
    const Shape& key = input_shapes[data_inputs_.size() > 1 ? data_inputs_[1] : data_inputs_[0]];
    const bool batched = query.size() == 3;
    state->order = !batched       ? SequenceOrder::kUnbatched
                   : batch_first_ ? SequenceOrder::kBatchFirst
                                  : SequenceOrder::kSequenceFirst;
    state->batch = CheckedInt(!batched ? 1 : batch_first_ ? query[0] : query[1], "batch");
    state->target = CheckedInt(batch_first_ && batched ? query[1] : query[0], "query length");
    state->source = CheckedInt(batch_first_ && batched ? key[1] : key[0], "key length");
    state->keys = state->source + (bias_k_.empty() ? 0 : 1) + (zero_attention_ ? 1 : 0);
    const size_t n = static_cast<size_t>(state->batch);
    const size_t query_tokens = CheckedMultiply(n, state->target, "query tokens");
    const size_t key_tokens = CheckedMultiply(n, state->source, "key tokens");
    const size_t key_rows = CheckedMultiply(n, state->keys, "key rows");
    CheckedInt(static_cast<int64_t>(std::max(query_tokens, key_rows)), "token count");
    const bool direct = IsTokenMatrix(*state);
    const size_t e = static_cast<size_t>(embed_);
    if (!direct) {
      state->query_tokens.resize(CheckedMultiply(query_tokens, e, "query"));
      if (data_inputs_.size() > 1) {
        state->key_tokens.resize(CheckedMultiply(key_tokens, key_dim_, "key"));
      }
      if (data_inputs_.size() > 2) {
        state->value_tokens.resize(CheckedMultiply(key_tokens, value_dim_, "value"));
      }
    }
    state->projected.resize(
        CheckedMultiply(CheckedAdd(query_tokens, 2 * key_rows, "projections"), e, "projections"));
    state->attended.resize(CheckedMultiply(query_tokens, e, "attention output"));
    if (state->order == SequenceOrder::kSequenceFirst) state->result.resize(state->attended.size());

    // Blocks of query rows: at most kMaxBlockRows each, and enough tasks for every thread while
    // a block keeps at least one full panel of rows for the GEMM.
    const int tasks_per_block = state->batch * (HeadsPerTask() == heads_ ? 1 : heads_);
    int blocks = std::max(1, (state->target + kMaxBlockRows - 1) / kMaxBlockRows);
    while (static_cast<int64_t>(tasks_per_block) * blocks < 2 * context.threads &&
           (state->target + blocks) / (blocks + 1) >= kPanelRows) {
      ++blocks;
    }
    state->block_rows = std::max(1, (state->target + blocks - 1) / blocks);

    Workspace& workspace = *context.workspace;
    ReserveAttentionScratch(Heads(*state), state->block_rows, &workspace);
    for (const auto& [m, k] : {std::pair<int, int>{static_cast<int>(query_tokens), embed_},
                               {static_cast<int>(key_tokens), key_dim_},
                               {static_cast<int>(key_tokens), value_dim_}}) {
      workspace.Reserve(ScratchSlot::kGemmPacking, PackedGemmScratchSize(m, k));
    }
    return state;
  }

  // Projections, attention per task, out-projection (see the top of this file).
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    AttentionState& state = context.state_as<AttentionState>();
    const ComputeContext& compute = context.compute;
    const int n = state.batch;
    const int target = state.target;
    const int source = state.source;
    const int keys = state.keys;
    const int query_tokens = n * target;
    const int key_rows = n * keys;
    const size_t e = static_cast<size_t>(embed_);
    if (query_tokens == 0) return;

    // 1. The inputs as token matrices (row n*L + l, column-major).
    const Tensor& query_input = *inputs[data_inputs_[0]];
    const Tensor& key_input = *inputs[data_inputs_[std::min<size_t>(1, data_inputs_.size() - 1)]];
    const Tensor& value_input = *inputs[data_inputs_.back()];
    const float* query_tokens_data =
        TokenMatrix(state, query_input, target, embed_, &state.query_tokens, compute);
    const float* key_tokens_data =
        data_inputs_.size() == 1
            ? query_tokens_data
            : TokenMatrix(state, key_input, source, key_dim_, &state.key_tokens, compute);
    const float* value_tokens_data =
        data_inputs_.size() == 1 ? query_tokens_data
        : data_inputs_.size() == 2
            ? key_tokens_data
            : TokenMatrix(state, value_input, source, value_dim_, &state.value_tokens, compute);
    // Token matrices read in place have one item (N = 1), so the leading dimension is the length.
    const int query_ld = query_tokens;
    const int key_input_ld = n * source;

    // 2. In-projections into Q, K and V token matrices.
    float* q = state.projected.data();
    float* k = q + static_cast<size_t>(query_tokens) * e;
    float* v = k + static_cast<size_t>(key_rows) * e;
    if (qkv_weights_.cols() > 0) {
      PackedGemm(query_tokens, query_tokens_data, query_ld, qkv_weights_, q, query_tokens, compute);
      AddColumnBias(in_bias_.data(), query_tokens, 3 * embed_, q, query_tokens);
    } else {
      PackedGemm(query_tokens, query_tokens_data, query_ld, q_weights_, q, query_tokens, compute);
      AddColumnBias(in_bias_.data(), query_tokens, embed_, q, query_tokens);
      ProjectKeys(key_tokens_data, key_input_ld, k_weights_, in_bias_.data() + e, bias_k_, state, k,
                  compute);
      ProjectKeys(value_tokens_data, key_input_ld, v_weights_, in_bias_.data() + 2 * e, bias_v_,
                  state, v, compute);
    }

    // 3. Attention per (item, head or heads, block of query rows): kernel/attention.hpp.
    AttentionHeads heads = Heads(state);
    heads.q = q;
    heads.k = k;
    heads.v = v;
    if (mask_input_ >= 0) {
      heads.mask = inputs[mask_input_]->data();
      heads.mask_per_head = inputs[mask_input_]->rank() == 3;
    }
    if (padding_input_ >= 0) heads.padding = inputs[padding_input_]->data();
    if (outputs.size() > 1) heads.weights = outputs[1]->data();
    heads.attended = state.attended.data();
    Attend(heads, state.block_rows, compute);
    const float* attended = heads.attended;

    // 4. Out-projection, into the output's layout.
    float* output = outputs[0]->data();
    switch (state.order) {
      case SequenceOrder::kUnbatched:
      case SequenceOrder::kBatchFirst:
        // Item n's tokens are one column-major L x E matrix of the output.
        for (int item = 0; item < n; ++item) {
          float* out = output + static_cast<size_t>(item) * target * e;
          PackedGemm(target, attended + static_cast<size_t>(item) * target, query_tokens,
                     out_weights_, out, target, compute);
          AddColumnBias(out_bias_.data(), target, embed_, out, target);
        }
        break;
      case SequenceOrder::kSequenceFirst: {
        float* result = state.result.data();
        PackedGemm(query_tokens, attended, query_tokens, out_weights_, result, query_tokens,
                   compute);
        // (L, N, E): slice l, row n, column e.
        for (int l = 0; l < target; ++l) {
          float* slice = output + static_cast<size_t>(l) * n * e;
          for (size_t f = 0; f < e; ++f) {
            const float* column = result + f * query_tokens + l;
            for (int item = 0; item < n; ++item) {
              slice[item + f * n] = column[static_cast<size_t>(item) * target] + out_bias_[f];
            }
          }
        }
        break;
      }
    }
  }

 private:
  // Heads one task of Attend computes (the kernel's rule, for planning the blocks).
  int HeadsPerTask() const {
    return AttentionHeadsPerTask(heads_, output_count() == 2 && average_weights_);
  }

  // The sizes and flags of this attention for the kernel; the operands are filled in by Forward.
  AttentionHeads Heads(const AttentionState& state) const {
    AttentionHeads heads;
    heads.items = state.batch;
    heads.heads = heads_;
    heads.head_dim = head_dim_;
    heads.queries = state.target;
    heads.sources = state.source;
    heads.keys = state.keys;
    heads.mask_is_bool = mask_is_bool_;
    heads.padding_is_bool = padding_is_bool_;
    heads.average_weights = average_weights_;
    return heads;
  }

  // The number of outputs the graph reads.
  size_t output_count() const { return outputs_; }

  // True when the inputs already are token matrices: one item, its tokens in the rows of one
  // column-major matrix.
  static bool IsTokenMatrix(const AttentionState& state) {
    return state.order != SequenceOrder::kSequenceFirst && state.batch == 1;
  }

  // The input as a token matrix: itself when it is one, else gathered into `buffer`.
  const float* TokenMatrix(const AttentionState& state, const Tensor& input, int length,
                           int features, std::vector<float>* buffer,
                           const ComputeContext& compute) const;

  // K or V = tokens * W^T + bias into rows item * keys + s, then the keys appended by
  // add_bias_kv (`bias_row`, if any) and add_zero_attn.
  void ProjectKeys(const float* tokens, int ld, const PackedMatrix& weights, const float* bias,
                   const std::vector<float>& bias_row, const AttentionState& state, float* target,
                   const ComputeContext& compute) const;

  int embed_ = 0;
  int heads_ = 0;
  int head_dim_ = 0;
  int key_dim_ = 0;
  int value_dim_ = 0;
  bool batch_first_ = false;
  bool average_weights_ = true;
  bool zero_attention_ = false;
  int mask_input_ = -1;     // attn_mask: (L, S) or (N*heads, L, S)
  int padding_input_ = -1;  // key_padding_mask: (N, S) or (S)
  bool mask_is_bool_ = false;
  bool padding_is_bool_ = false;
  size_t outputs_ = 1;
  std::vector<int> data_inputs_;  // query[, key[, value]]
  PackedMatrix qkv_weights_;      // self-attention: [Wq; Wk; Wv]^T, one GEMM
  PackedMatrix q_weights_, k_weights_, v_weights_;
  std::vector<float> in_bias_;  // 3E: q (scaled), k, v
  std::vector<float> bias_k_, bias_v_;
  PackedMatrix out_weights_;
  std::vector<float> out_bias_;
};

const float* MultiheadAttentionLayer::TokenMatrix(const AttentionState& state, const Tensor& input,
                                                  int length, int features,
                                                  std::vector<float>* buffer,
                                                  const ComputeContext& compute) const {
  if (IsTokenMatrix(state)) return input.data();
  const size_t n = static_cast<size_t>(state.batch);
  const size_t rows = n * length;
  const float* source = input.data();
  float* target = buffer->data();
  const bool sequence_first = state.order == SequenceOrder::kSequenceFirst;
  ParallelFor(compute.pool, features, [&](std::ptrdiff_t f) {
    float* column = target + static_cast<size_t>(f) * rows;
    for (size_t item = 0; item < n; ++item) {
      for (int l = 0; l < length; ++l) {
        // (N, L, F): item's L x F matrix; (L, N, F): slice l, row item, column f.
        column[item * length + l] = sequence_first
                                        ? source[(static_cast<size_t>(l) * features + f) * n + item]
                                        : source[(item * features + f) * length + l];
      }
    }
  });
  return target;
}

void MultiheadAttentionLayer::ProjectKeys(const float* tokens, int ld, const PackedMatrix& weights,
                                          const float* bias, const std::vector<float>& bias_row,
                                          const AttentionState& state, float* target,
                                          const ComputeContext& compute) const {
  const int n = state.batch;
  const int source = state.source;
  const int keys = state.keys;
  const int rows = n * keys;
  if (keys == source) {
    PackedGemm(rows, tokens, ld, weights, target, rows, compute);
    AddColumnBias(bias, rows, embed_, target, rows);
    return;
  }
  for (int item = 0; item < n; ++item) {
    float* block = target + static_cast<size_t>(item) * keys;
    PackedGemm(source, tokens + static_cast<size_t>(item) * source, ld, weights, block, rows,
               compute);
    AddColumnBias(bias, source, embed_, block, rows);
    int extra = source;
    if (!bias_row.empty()) {
      for (int f = 0; f < embed_; ++f) block[extra + static_cast<size_t>(f) * rows] = bias_row[f];
      ++extra;
    }
    if (zero_attention_) {
      for (int f = 0; f < embed_; ++f) block[extra + static_cast<size_t>(f) * rows] = 0.0f;
    }
  }
}

LUMEN_REGISTER_LAYER(MultiheadAttentionLayer, "nn.MultiheadAttention");

}  // namespace lumen
