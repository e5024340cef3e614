// lumen.ScaledDotProductAttention: softmax(scale * Q K^T) V over the last two dimensions, for
// every index of the leading ones, from K or (transposed_keys) from K^T as the graph computed it.
// No file names it: the attention pass (passes/attention.cpp) makes it of what exporters write out
// as MatMul(Q, Transpose(K)) -> Mul/Div -> Softmax -> MatMul, so that ONNX transformers run on the
// kernel nn.MultiheadAttention uses (kernel/attention.hpp).
//
// Lumen's layout makes this cheap: a (B, L, d) tensor is B column-major L x d matrices one after
// the other, which is exactly the kernel's token matrix of one item and B heads (head b in columns
// b*d .. b*d + d - 1 of one L x B*d matrix). Q, K, V and the output are read and written in place.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "base/checked_math.hpp"
#include "kernel/attention.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// The most query rows one task of the kernel takes.
constexpr int kMaxBlockRows = 128;

// Per session: the sizes, the query block, and Q times the scale when it is not 1.
struct AttentionState : LayerState {
  // The problem as the kernel sees it: one item whose heads are the leading dimensions' indices
  // (heads: their product; queries: L; keys and sources: S; head_dim: d, of Q and K). Forward
  // sets its pointers.
  AttentionHeads problem;
  int value_depth = 0;
  int block_rows = 1;
  std::vector<float> scaled_queries;
  std::vector<float> keys_buffer;  // K gathered from K^T
  std::vector<float> weights;      // one row of scores, for the plain loops (d != value depth)

  size_t bytes() const override {
    return (scaled_queries.capacity() + keys_buffer.capacity() + weights.capacity()) *
           sizeof(float);
  }
};

// Q (..., L, d), K (..., S, d), V (..., S, dv) -> (..., L, dv), leading dimensions equal.
class ScaledDotProductAttention : public Layer {
 public:
  // Reads `scale`, the factor of the scores (1 when the exporter scaled Q itself), and
  // `transposed_keys`: whether input 1 is K^T (..., d, S).
  explicit ScaledDotProductAttention(const LayerConfig& config)
      : Layer(config),
        scale_(config.FloatParam("scale", 1.0f)),
        transposed_keys_(config.BoolParam("transposed_keys", false)) {}

  // The queries' leading dimensions and rows, the values' columns.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 3);
    const Shape& q = input_shapes[0];
    Shape k = input_shapes[1];
    const Shape& v = input_shapes[2];
    const size_t rank = q.size();
    if (transposed_keys_ && k.size() >= 2) std::swap(k[k.size() - 2], k[k.size() - 1]);
    if (rank < 2 || k.size() != rank || v.size() != rank ||
        !std::equal(q.begin(), q.end() - 2, k.begin()) ||
        !std::equal(q.begin(), q.end() - 2, v.begin()) || q[rank - 1] != k[rank - 1] ||
        k[rank - 2] != v[rank - 2]) {
      Fail(Concat("expected Q (..., L, d), ",
                  transposed_keys_ ? "K^T (..., d, S)" : "K (..., S, d)",
                  " and V (..., S, dv) of one rank >= 2 with the same leading dimensions, got ",
                  ShapeToString(q), ", ", ShapeToString(input_shapes[1]), ", ", ShapeToString(v)));
    }
    Shape output = q;
    output[rank - 1] = v[rank - 1];
    return {output};
  }

  // Sizes the problem and, for the kernel, its query blocks and scratch.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& /*output_shapes*/,
                       const PrepareContext& context) const override {
    const Shape& q = input_shapes[0];
    const size_t rank = q.size();
    auto state = std::make_unique<AttentionState>();
    AttentionHeads& problem = state->problem;
    problem.items = 1;
    problem.heads = static_cast<int>(
        ShapeElementCount(q) / std::max<size_t>(1, static_cast<size_t>(q[rank - 2]) * q[rank - 1]));
    problem.queries = static_cast<int>(q[rank - 2]);
    problem.head_dim = static_cast<int>(q[rank - 1]);
    problem.keys = static_cast<int>(input_shapes[1][transposed_keys_ ? rank - 1 : rank - 2]);
    problem.sources = problem.keys;
    state->value_depth = static_cast<int>(input_shapes[2][rank - 1]);
    if (scale_ != 1.0f) state->scaled_queries.resize(ShapeElementCount(q));
    if (transposed_keys_) state->keys_buffer.resize(ShapeElementCount(input_shapes[1]));
    if (!UsesTheKernel(*state)) {
      state->weights.resize(static_cast<size_t>(problem.keys));
      return state;
    }
    // Enough tasks (heads x blocks) for every thread, blocks of at most kMaxBlockRows rows.
    int blocks = std::max(1, (problem.queries + kMaxBlockRows - 1) / kMaxBlockRows);
    while (problem.heads * blocks < 2 * context.threads && problem.queries / (blocks + 1) >= 16) {
      ++blocks;
    }
    state->block_rows = std::max(1, (problem.queries + blocks - 1) / blocks);
    if (context.workspace != nullptr) {
      ReserveAttentionScratch(problem, state->block_rows, context.workspace);
    }
    return state;
  }

  // Scales Q if needed, then runs the kernel (or, when V's depth differs, plain loops).
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    AttentionState& state = context.state_as<AttentionState>();
    const float* q = inputs[0]->data();
    if (scale_ != 1.0f) {
      const size_t count = state.scaled_queries.size();
      for (size_t index = 0; index < count; ++index)
        state.scaled_queries[index] = q[index] * scale_;
      q = state.scaled_queries.data();
    }
    const float* k = inputs[1]->data();
    if (transposed_keys_) {
      GatherKeys(state, k, context.compute.pool);
      k = state.keys_buffer.data();
    }
    if (!UsesTheKernel(state)) {
      AttendInLoops(state, q, k, inputs[2]->data(), outputs[0]->data());
      return;
    }
    AttentionHeads& problem = state.problem;
    problem.q = q;
    problem.k = k;
    problem.v = inputs[2]->data();
    problem.attended = outputs[0]->data();
    Attend(problem, state.block_rows, context.compute);
  }

 private:
  // The kernel takes one depth for Q, K and V.
  static bool UsesTheKernel(const AttentionState& state) {
    const AttentionHeads& problem = state.problem;
    return problem.head_dim == state.value_depth && problem.heads > 0 && problem.queries > 0 &&
           problem.keys > 0;
  }

  // K (b, s, e) at b*S*d + e*S + s, from K^T (b, e, s) at b*d*S + s*d + e: each slice's
  // storage, a row-major S x d matrix, turned into d x S (tensor/strided's tiled transpose).
  static void GatherKeys(AttentionState& state, const float* transposed, ThreadPool* pool) {
    const size_t keys = static_cast<size_t>(state.problem.keys);
    const size_t depth = static_cast<size_t>(state.problem.head_dim);
    for (size_t b = 0; b < static_cast<size_t>(state.problem.heads); ++b) {
      TransposeMatrix(transposed + b * keys * depth, keys, depth,
                      state.keys_buffer.data() + b * keys * depth, pool);
    }
  }

  // The definition in plain loops, for a V of another depth than Q and K.
  static void AttendInLoops(AttentionState& state, const float* q, const float* k, const float* v,
                            float* output) {
    const size_t queries = static_cast<size_t>(state.problem.queries);
    const size_t keys = static_cast<size_t>(state.problem.keys);
    const size_t depth = static_cast<size_t>(state.problem.head_dim);
    const size_t value_depth = static_cast<size_t>(state.value_depth);
    float* weights = state.weights.data();
    for (size_t b = 0; b < static_cast<size_t>(state.problem.heads); ++b) {
      const float* qb = q + b * queries * depth;
      const float* kb = k + b * keys * depth;
      const float* vb = v + b * keys * value_depth;
      float* ob = output + b * queries * value_depth;
      for (size_t l = 0; l < queries; ++l) {
        float largest = -INFINITY;
        for (size_t s = 0; s < keys; ++s) {
          float score = 0.0f;
          for (size_t e = 0; e < depth; ++e) score += qb[e * queries + l] * kb[e * keys + s];
          weights[s] = score;
          largest = std::max(largest, score);
        }
        float sum = 0.0f;
        for (size_t s = 0; s < keys; ++s) {
          weights[s] = std::exp(weights[s] - largest);
          sum += weights[s];
        }
        for (size_t e = 0; e < value_depth; ++e) {
          float total = 0.0f;
          for (size_t s = 0; s < keys; ++s) total += weights[s] * vb[e * keys + s];
          ob[e * queries + l] = total / sum;
        }
      }
    }
  }

  float scale_ = 1.0f;
  bool transposed_keys_ = false;
};

}  // namespace

LUMEN_REGISTER_LAYER(ScaledDotProductAttention, "lumen.ScaledDotProductAttention");

}  // namespace lumen
