// nn.LSTM, nn.GRU and nn.RNN (tanh or relu): any number of layers, one or two directions,
// batch-first, sequence-first or unbatched input, with or without biases, optional initial states
// (h0[, c0]) as inputs, and every output (y, h_n[, c_n]).
//
// The work of each layer splits in two. The input's share of every gate, at every time step and
// for both directions, is one packed GEMM over all tokens (token t*N + n of step t, item n):
// gates^T = [W_ih; W_ih_reverse] X^T, which leaves the gates of each token contiguous. What is
// left is the recurrence: at each step, each direction adds W_hh h_{t-1} to its gates and applies
// PyTorch's gate math, vectorised across the hidden units: the cell's step, the inner loop, is
// kernel/recurrent_cell.hpp's RecurrentCellStep.
// The two directions step together (forward at t, reverse at L-1-t), each step one parallel loop
// over the directions and blocks of hidden units, when a step has enough work to share.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "base/checked_math.hpp"
#include "kernel/recurrent_cell.hpp"
#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "math/packed_gemm.hpp"

namespace lumen {
namespace {

// Multiply-adds one step must have before its units are shared among threads: a parallel loop
// costs a few microseconds, about this much arithmetic.
constexpr int64_t kParallelStepWork = 1 << 15;

// How a sequence operand is laid out.
enum class SequenceOrder { kUnbatched, kBatchFirst, kSequenceFirst };

// One layer's weights for both directions.
struct RecurrentLayerWeights {
  std::vector<float> input;                     // [W_ih; W_ih_reverse], column-major D*G*H x in
  std::vector<float> input_bias;                // D*G*H: b_ih, plus b_hh where it simply adds
  std::vector<std::vector<float>> hidden;       // per direction: PackRecurrentWeights(W_hh)
  std::vector<std::vector<float>> hidden_bias;  // per direction, GRU only: b_hn (H)
};

// Per session and shape: the sizes, and the buffers of one run.
struct RecurrentState : LayerState {
  SequenceOrder order = SequenceOrder::kSequenceFirst;
  int length = 0;  // L
  int batch = 0;   // N
  bool parallel_steps = false;
  int unit_blocks = 1;              // blocks of hidden units per direction in a parallel step
  std::vector<float> tokens;        // T x I: the input, token by token (row t*N + n)
  std::vector<float> packed_input;  // a layer's input, packed as the GEMM's right-hand side
  std::vector<float> gates;         // T x D*G*H: the input's share of every gate, by token
  std::vector<float> outputs[2];    // T x D*H: layer outputs by token, alternating by layer
  std::vector<float> hidden;        // per direction two N x H states (previous, next)
  std::vector<float> recurrent;     // per direction N x G*padded units: W_hh h of a step
  std::vector<float> cell;          // per direction N x H (LSTM)

  size_t bytes() const override {
    return (tokens.size() + packed_input.size() + gates.size() + outputs[0].size() +
            outputs[1].size() + hidden.size() + recurrent.size() + cell.size()) *
           sizeof(float);
  }
};

}  // namespace

// nn.LSTM / nn.GRU / nn.RNN (see the top of this file).
class RecurrentLayer : public Layer {
 public:
  // Reads the sizes and weights of every layer and direction; packs the input weights.
  explicit RecurrentLayer(const LayerConfig& config) : Layer(config) {
    if (config.type() == "nn.LSTM") {
      cell_ = Cell::kLstm;
    } else if (config.type() == "nn.GRU") {
      cell_ = Cell::kGru;
    } else {
      const std::string nonlinearity = config.StringParam("nonlinearity", "tanh");
      if (nonlinearity != "tanh" && nonlinearity != "relu") {
        Fail(Concat("nonlinearity must be tanh or relu, got '", nonlinearity, "'"));
      }
      cell_ = nonlinearity == "tanh" ? Cell::kRnnTanh : Cell::kRnnRelu;
    }
    input_size_ = config.IntParam("input_size");
    hidden_size_ = config.IntParam("hidden_size");
    layers_ = config.IntParam("num_layers", 1);
    directions_ = config.BoolParam("bidirectional", false) ? 2 : 1;
    batch_first_ = config.BoolParam("batch_first", false);
    output_count_ = config.output_count();
    const bool bias = config.BoolParam("bias", true);
    if (input_size_ < 1 || hidden_size_ < 1 || layers_ < 1) {
      Fail(Concat("input_size ", input_size_, ", hidden_size ", hidden_size_, " and num_layers ",
                  layers_, " must be positive"));
    }
    if (cell_ == Cell::kLstm && config.IntParam("proj_size", 0) != 0) {
      Fail(Concat("proj_size ", config.IntParam("proj_size", 0), " is not supported (only 0)"));
    }
    const int gates = GateCount(cell_);
    const int h = hidden_size_;
    const int gh = gates * h;
    CheckedMultiply(CheckedMultiply(directions_, gh, "gates"), std::max(input_size_, h), "weights");
    for (int layer = 0; layer < layers_; ++layer) {
      const int in = layer == 0 ? input_size_ : directions_ * h;
      RecurrentLayerWeights weights;
      const size_t rows = static_cast<size_t>(directions_) * gh;
      weights.input.assign(rows * in, 0.0f);
      weights.input_bias.assign(rows, 0.0f);
      for (int direction = 0; direction < directions_; ++direction) {
        const std::string suffix = Concat("_l", layer, direction == 1 ? "_reverse" : "");
        const std::vector<float> w_ih = config.AttributeFloats("weight_ih" + suffix, {gh, in});
        for (int row = 0; row < gh; ++row) {
          for (int p = 0; p < in; ++p) {
            weights.input[direction * gh + row + p * rows] =
                w_ih[static_cast<size_t>(row) * in + p];
          }
        }
        const std::vector<float> w_hh = config.AttributeFloats("weight_hh" + suffix, {gh, h});
        weights.hidden.push_back(PackRecurrentWeights(w_hh, cell_, h));
        std::vector<float> b_hn(h, 0.0f);
        if (bias) {
          const std::vector<float> b_ih = config.AttributeFloats("bias_ih" + suffix, {gh});
          const std::vector<float> b_hh = config.AttributeFloats("bias_hh" + suffix, {gh});
          float* target = weights.input_bias.data() + static_cast<size_t>(direction) * gh;
          for (int i = 0; i < gh; ++i) {
            // GRU's b_hn is multiplied by r with W_hn h, so it cannot join the input's share.
            const bool separate = cell_ == Cell::kGru && i >= 2 * h;
            target[i] = b_ih[i] + (separate ? 0.0f : b_hh[i]);
            if (separate) b_hn[i - 2 * h] = b_hh[i];
          }
        }
        weights.hidden_bias.push_back(std::move(b_hn));
      }
      weights_.push_back(std::move(weights));
    }
  }

  // y is the input with D*H features; h_n and c_n are (layers*D, N, H), or (layers*D, H).
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    const size_t states = cell_ == Cell::kLstm ? 2 : 1;
    if (input_shapes.size() != 1 && input_shapes.size() != 1 + states) {
      Fail(Concat("expected the input",
                  cell_ == Cell::kLstm ? " and optionally h0, c0" : " and optionally h0", ", got ",
                  input_shapes.size(), " inputs"));
    }
    if (output_count_ > 1 + states) {
      Fail(Concat("expected at most ", 1 + states, " outputs, got ", output_count_));
    }
    const Shape& input = input_shapes[0];
    const bool batched = input.size() == 3;
    const std::string layout = !batched       ? "(L,input_size)"
                               : batch_first_ ? "(N,L,input_size)"
                                              : "(L,N,input_size)";
    if ((input.size() != 2 && input.size() != 3) ||
        input.back() != static_cast<uint32_t>(input_size_)) {
      Fail(Concat("expected an input of shape ", layout, " with input_size ", input_size_, ", got ",
                  ShapeToString(input)));
    }
    const uint32_t batch = !batched ? 1 : batch_first_ ? input[0] : input[1];
    const uint32_t stacked = static_cast<uint32_t>(layers_ * directions_);
    const uint32_t h = static_cast<uint32_t>(hidden_size_);
    const Shape state = batched ? Shape{stacked, batch, h} : Shape{stacked, h};
    for (size_t i = 1; i < input_shapes.size(); ++i) {
      if (input_shapes[i] != state) {
        Fail(Concat("expected ", i == 1 ? "h0" : "c0", " of shape ", ShapeToString(state),
                    " for input ", ShapeToString(input), ", got ", ShapeToString(input_shapes[i])));
      }
    }
    Shape y = input;
    y.back() = static_cast<uint32_t>(directions_) * h;
    ShapeElementCount(y);
    std::vector<Shape> outputs = {y};
    for (size_t i = 1; i < output_count_; ++i) outputs.push_back(state);
    return outputs;
  }

  // Sizes the per-run buffers and decides whether steps are shared among threads.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                       const PrepareContext& context) const override {
    (void)output_shapes;
    auto state = std::make_unique<RecurrentState>();
    const Shape& input = input_shapes[0];
    const bool batched = input.size() == 3;
    state->order = !batched       ? SequenceOrder::kUnbatched
                   : batch_first_ ? SequenceOrder::kBatchFirst
                                  : SequenceOrder::kSequenceFirst;
    state->length = CheckedInt(batched && batch_first_ ? input[1] : input[0], "sequence length");
    state->batch = CheckedInt(!batched ? 1 : batch_first_ ? input[0] : input[1], "batch");
    const size_t tokens = CheckedMultiply(state->length, state->batch, "tokens");
    CheckedInt(static_cast<int64_t>(tokens), "tokens");
    const size_t h = static_cast<size_t>(hidden_size_);
    const size_t gh = static_cast<size_t>(GateCount(cell_)) * h;
    const int largest_input = std::max(input_size_, directions_ * hidden_size_);
    state->tokens.resize(CheckedMultiply(tokens, input_size_, "input tokens"));
    state->packed_input.resize(PackedColumnsSize(largest_input, static_cast<int>(tokens)));
    state->gates.resize(CheckedMultiply(tokens, directions_ * gh, "gates"));
    const size_t layer_output = CheckedMultiply(tokens, directions_ * h, "layer output");
    state->outputs[0].resize(layer_output);
    if (layers_ > 1) state->outputs[1].resize(layer_output);
    const size_t states = CheckedMultiply(state->batch, h, "state");
    state->hidden.resize(CheckedMultiply(2 * directions_, states, "state"));
    state->recurrent.resize(CheckedMultiply(CheckedMultiply(directions_, state->batch, "state"),
                                            GateCount(cell_) * PaddedUnits(), "state"));
    if (cell_ == Cell::kLstm) state->cell.resize(CheckedMultiply(directions_, states, "state"));
    // Each step multiplies D * G*H rows of W_hh by N states of H.
    const int64_t step_work = static_cast<int64_t>(directions_) * gh * h * state->batch;
    state->parallel_steps = context.threads > 1 && step_work >= kParallelStepWork;
    if (state->parallel_steps) {
      const int wanted = std::max(1, (2 * context.threads + directions_ - 1) / directions_);
      state->unit_blocks = std::min(wanted, PaddedUnits() / kRecurrentUnitStep);
    }
    context.workspace->Reserve(
        ScratchSlot::kGemmPacking,
        PackedGemmScratchSize(CheckedInt(directions_ * gh, "gates"), largest_input));
    return state;
  }

  // Runs every layer: the input GEMM, then the steps (see the top of this file).
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    RecurrentState& state = context.state_as<RecurrentState>();
    const ComputeContext& compute = context.compute;
    const int length = state.length;
    const int n = state.batch;
    const int tokens = length * n;
    const int h = hidden_size_;
    const int gh = GateCount(cell_) * h;
    const size_t states = static_cast<size_t>(n) * h;
    const float* h0 = inputs.size() > 1 ? inputs[1]->data() : nullptr;
    const float* c0 = inputs.size() > 2 ? inputs[2]->data() : nullptr;
    float* h_n = outputs.size() > 1 ? outputs[1]->data() : nullptr;
    float* c_n = outputs.size() > 2 ? outputs[2]->data() : nullptr;

    const float* layer_input = GatherTokens(state, *inputs[0], compute);
    const int rows = directions_ * gh;
    for (int layer = 0; layer < layers_; ++layer) {
      const RecurrentLayerWeights& weights = weights_[layer];
      const int in = layer == 0 ? input_size_ : directions_ * h;
      float* gates = state.gates.data();
      float* layer_output = state.outputs[layer % 2].data();
      // The input's share of every gate, both directions, all steps, token by token: one GEMM,
      // gates^T (D*G*H x T) = [W_ih; W_ih_reverse] * X^T.
      if (tokens > 0) {
        // LESSON 15 BEGIN: gates^T = W_ih X^T for every token at once, plus the biases
        PackColumns(layer_input, 1, in, in, tokens, state.packed_input.data());
        PackedGemm(rows, weights.input.data(), rows,
                   PackedPanels(state.packed_input.data(), in, tokens), gates, rows, compute);
        for (int t = 0; t < tokens; ++t) {
          float* token = gates + static_cast<size_t>(t) * rows;
          for (int r = 0; r < rows; ++r) token[r] += weights.input_bias[r];
        }
        // LESSON 15 END
      }
      // Initial states.
      for (int direction = 0; direction < directions_; ++direction) {
        const int stacked = layer * directions_ + direction;
        LoadState(state, h0, stacked, state.hidden.data() + 2 * direction * states);
        if (cell_ == Cell::kLstm) {
          LoadState(state, c0, stacked, state.cell.data() + direction * states);
        }
      }
      // The recurrence.
      const int blocks = state.unit_blocks;
      for (int step = 0; step < length; ++step) {
        const int parity = step % 2;
        const auto task = [&](std::ptrdiff_t index) {
          const int direction = static_cast<int>(index) / blocks;
          const int block = static_cast<int>(index) % blocks;
          // Blocks of whole vectors of units.
          const int vectors = PaddedUnits() / kRecurrentUnitStep;
          const int first = vectors * block / blocks * kRecurrentUnitStep;
          const int end = vectors * (block + 1) / blocks * kRecurrentUnitStep;
          const size_t t = static_cast<size_t>(direction == 0 ? step : length - 1 - step);
          float* hidden = state.hidden.data() + 2 * direction * states;
          CellStep cell;
          cell.cell = cell_;
          cell.hidden = h;
          cell.items = n;
          cell.b_hn = weights.hidden_bias[direction].data();
          cell.gates = gates + t * n * rows + static_cast<size_t>(direction) * gh;
          cell.gates_stride = rows;
          cell.previous = hidden + parity * states;
          cell.next = hidden + (1 - parity) * states;
          if (cell_ == Cell::kLstm) cell.cell_state = state.cell.data() + direction * states;
          cell.output = layer_output + (t * n * directions_ + direction) * h;
          cell.output_stride = static_cast<size_t>(directions_) * h;
          RecurrentCellStep(cell, weights.hidden[direction].data(),
                            state.recurrent.data() + static_cast<size_t>(direction) * n *
                                                         GateCount(cell_) * PaddedUnits(),
                            first, end);
        };
        ParallelFor(compute.pool, directions_ * blocks, task, Schedule::kStatic,
                    state.parallel_steps);
      }
      // Final states: after `length` steps the latest is in the buffer of parity length % 2.
      for (int direction = 0; direction < directions_; ++direction) {
        const int stacked = layer * directions_ + direction;
        const float* hidden = state.hidden.data() + (2 * direction + length % 2) * states;
        if (h_n != nullptr) StoreState(state, hidden, stacked, h_n);
        if (c_n != nullptr) StoreState(state, state.cell.data() + direction * states, stacked, c_n);
      }
      layer_input = layer_output;
    }
    WriteOutput(state, layer_input, outputs[0]->data());
  }

 private:
  // Memory offset of element (stacked layer and direction, item, unit) of h0, c0, h_n or c_n:
  // (layers*D, N, H), or (layers*D, H) for an unbatched input.
  size_t StateOffset(const RecurrentState& state, int stacked, int item, int unit) const {
    if (state.order == SequenceOrder::kUnbatched) {
      return stacked + static_cast<size_t>(unit) * layers_ * directions_;
    }
    const size_t n = static_cast<size_t>(state.batch);
    return (static_cast<size_t>(stacked) * hidden_size_ + unit) * n + item;
  }

  // Copies an initial state (or zeros) into the N x H row-major buffer `target`.
  void LoadState(const RecurrentState& state, const float* source, int stacked,
                 float* target) const {
    for (int item = 0; item < state.batch; ++item) {
      for (int unit = 0; unit < hidden_size_; ++unit) {
        target[static_cast<size_t>(item) * hidden_size_ + unit] =
            source == nullptr ? 0.0f : source[StateOffset(state, stacked, item, unit)];
      }
    }
  }

  // Copies the N x H row-major buffer `source` into h_n or c_n.
  void StoreState(const RecurrentState& state, const float* source, int stacked,
                  float* target) const {
    for (int item = 0; item < state.batch; ++item) {
      for (int unit = 0; unit < hidden_size_; ++unit) {
        target[StateOffset(state, stacked, item, unit)] =
            source[static_cast<size_t>(item) * hidden_size_ + unit];
      }
    }
  }

  // Copies the input into state.tokens, token by token (row t*N + n, features contiguous).
  const float* GatherTokens(RecurrentState& state, const Tensor& input,
                            const ComputeContext& compute) const {
    const size_t n = static_cast<size_t>(state.batch);
    const size_t length = static_cast<size_t>(state.length);
    const size_t features = static_cast<size_t>(input_size_);
    const float* source = input.data();
    float* target = state.tokens.data();
    const bool sequence_first = state.order == SequenceOrder::kSequenceFirst;
    ParallelFor(compute.pool, static_cast<std::ptrdiff_t>(length), [&](std::ptrdiff_t t) {
      for (size_t item = 0; item < n; ++item) {
        float* token = target + (t * n + item) * features;
        // (L, N, I): slice t, row item, column f. (N, L, I) or (L, I): item's L x I matrix.
        for (size_t f = 0; f < features; ++f) {
          token[f] = sequence_first ? source[(t * features + f) * n + item]
                                    : source[(item * features + f) * length + t];
        }
      }
    });
    return target;
  }

  // Writes the last layer's output (T x D*H, token by token) into y in the input's layout.
  void WriteOutput(const RecurrentState& state, const float* tokens_output, float* y) const {
    const size_t n = static_cast<size_t>(state.batch);
    const size_t length = static_cast<size_t>(state.length);
    const size_t features = static_cast<size_t>(directions_) * hidden_size_;
    for (size_t t = 0; t < length; ++t) {
      for (size_t item = 0; item < n; ++item) {
        const float* token = tokens_output + (t * n + item) * features;
        for (size_t f = 0; f < features; ++f) {
          if (state.order == SequenceOrder::kSequenceFirst) {
            y[(t * features + f) * n + item] = token[f];
          } else {
            y[(item * features + f) * length + t] = token[f];
          }
        }
      }
    }
  }

  // Hidden units rounded up to whole vectors: the column count of each gate in W_hh^T.
  int PaddedUnits() const { return RecurrentPaddedUnits(hidden_size_); }

  Cell cell_ = Cell::kLstm;
  int input_size_ = 0;
  int hidden_size_ = 0;
  int layers_ = 1;
  int directions_ = 1;
  bool batch_first_ = false;
  size_t output_count_ = 1;
  std::vector<RecurrentLayerWeights> weights_;  // per layer
};

LUMEN_REGISTER_LAYER(RecurrentLayer, "nn.LSTM", "nn.GRU", "nn.RNN");

}  // namespace lumen
