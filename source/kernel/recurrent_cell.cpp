#include "kernel/recurrent_cell.hpp"

#include <algorithm>
#include <cmath>

#include "math/fast_exp.hpp"
#include "math/fast_tanh.hpp"
#include "math/simd.hpp"

namespace lumen {
namespace {

// The gate functions, on FastExp and FastTanh (math/) so that the gate loops vectorise (std::tanh
// is a libm call that took 40% of an LSTM's time).
float Sigmoid(float x) { return 1.0f / (1.0f + FastExpWithNarrowRange(-x)); }

// W_hh is kept transposed, gate by gate, each gate's units padded to whole vectors and cut into
// panels of kPanelUnits columns stored one after another (depth x width floats each, row by
// row). The recurrent product of a step, out[n][c] = sum_p h[n][p] W^T[p][c], then streams each
// panel once for a few items at once, from contiguous memory: rows of the plain transposed
// matrix lie a multiple of 4 KB apart and would all compete for the same cache sets.
constexpr int kUnitStep = kRecurrentUnitStep;
constexpr int kPanelUnits = 4 * kUnitStep;
using UnitVector = FloatVector<kUnitStep>;

// out[i * ldo + c] = sum_p h[i * ldh + p] * w[p * ldw + c] for kItems items and kVectors vectors
// of columns: kItems * kVectors independent sums in registers, so that the loop is bound by the
// loads of W^T rather than by the latency of each addition.
template <int kItems, int kVectors>
void RecurrentTile(const float* w, int ldw, int depth, const float* h, int ldh, float* out,
                   int ldo) {
  UnitVector sums[kItems][kVectors] = {};
  for (int p = 0; p < depth; ++p) {
    const float* row = w + static_cast<size_t>(p) * ldw;
    UnitVector weights[kVectors];
    for (int v = 0; v < kVectors; ++v) weights[v] = LoadVector<UnitVector>(row + v * kUnitStep);
    for (int i = 0; i < kItems; ++i) {
      const float state = h[i * ldh + p];
      for (int v = 0; v < kVectors; ++v) sums[i][v] += weights[v] * state;
    }
  }
  for (int i = 0; i < kItems; ++i) {
    for (int v = 0; v < kVectors; ++v) {
      StoreVector(out + i * ldo + v * kUnitStep, sums[i][v]);
    }
  }
}

// Columns [first, end) (multiples of kUnitStep) of the product of `items` states with one gate's
// panels (`columns` padded units, `depth` rows), in tiles of at most 4 items x 4 vectors.
void RecurrentProduct(const float* panels, int columns, int depth, int first, int end,
                      const float* h, int ldh, int items, float* out, int ldo) {
  using Tile = void (*)(const float*, int, int, const float*, int, float*, int);
  static constexpr Tile kTiles[4][4] = {
      {RecurrentTile<1, 1>, RecurrentTile<1, 2>, RecurrentTile<1, 3>, RecurrentTile<1, 4>},
      {RecurrentTile<2, 1>, RecurrentTile<2, 2>, RecurrentTile<2, 3>, RecurrentTile<2, 4>},
      {RecurrentTile<3, 1>, RecurrentTile<3, 2>, RecurrentTile<3, 3>, RecurrentTile<3, 4>},
      {RecurrentTile<4, 1>, RecurrentTile<4, 2>, RecurrentTile<4, 3>, RecurrentTile<4, 4>}};
  for (int column = first; column < end;) {
    const int panel = column / kPanelUnits;
    const int offset = column % kPanelUnits;
    const int width = std::min(kPanelUnits, columns - panel * kPanelUnits);
    const int vectors = std::min(width - offset, end - column) / kUnitStep;
    const float* w = panels + static_cast<size_t>(panel) * kPanelUnits * depth + offset;
    for (int item = 0; item < items; item += 4) {
      const int tile_items = std::min(4, items - item);
      kTiles[tile_items - 1][vectors - 1](w, width, depth, h + item * ldh, ldh,
                                          out + item * ldo + column, ldo);
    }
    column += vectors * kUnitStep;
  }
}

// The gate math of one token, units [first, end): x = the input's share of the gates (gate q of
// unit j at q*h + j), r = W_hh h (at q*padded + j). Separate functions with restrict pointers,
// branch-free, so that each loop vectorises.
void LstmGates(int first, int end, int h, int padded, const float* __restrict x,
               const float* __restrict r, float* __restrict c, float* __restrict next,
               float* __restrict output) {
  // LESSON 15 BEGIN: LSTM gates i, f, g, o of each unit; new cell state, then new hidden state
  for (int j = first; j < end; ++j) {
    const float i_gate = Sigmoid(x[j] + r[j]);
    const float f_gate = Sigmoid(x[h + j] + r[padded + j]);
    const float g_gate = FastTanh(x[2 * h + j] + r[2 * padded + j]);
    const float o_gate = Sigmoid(x[3 * h + j] + r[3 * padded + j]);
    c[j] = f_gate * c[j] + i_gate * g_gate;
    const float value = o_gate * FastTanh(c[j]);
    next[j] = value;
    output[j] = value;
  }
  // LESSON 15 END
}

void GruGates(int first, int end, int h, int padded, const float* __restrict x,
              const float* __restrict r, const float* __restrict b_hn,
              const float* __restrict previous, float* __restrict next, float* __restrict output) {
  // LESSON 15 BEGIN: GRU gates r, z, n of each unit; the new hidden state between n and h
  for (int j = first; j < end; ++j) {
    const float reset = Sigmoid(x[j] + r[j]);
    const float update = Sigmoid(x[h + j] + r[padded + j]);
    const float candidate = FastTanh(x[2 * h + j] + reset * (r[2 * padded + j] + b_hn[j]));
    const float value = (1.0f - update) * candidate + update * previous[j];
    next[j] = value;
    output[j] = value;
  }
  // LESSON 15 END
}

void RnnGates(int first, int end, bool relu, const float* __restrict x, const float* __restrict r,
              float* __restrict next, float* __restrict output) {
  for (int j = first; j < end; ++j) {
    const float sum = x[j] + r[j];
    const float value = relu ? std::max(sum, 0.0f) : FastTanh(sum);
    next[j] = value;
    output[j] = value;
  }
}

}  // namespace

int GateCount(Cell cell) {
  switch (cell) {
    case Cell::kLstm:
      return 4;
    case Cell::kGru:
      return 3;
    default:
      return 1;
  }
}

int RecurrentPaddedUnits(int hidden) { return (hidden + kUnitStep - 1) / kUnitStep * kUnitStep; }

std::vector<float> PackRecurrentWeights(const std::vector<float>& w_hh, Cell cell, int hidden) {
  const int h = hidden;
  const int gates = GateCount(cell);
  const int padded = RecurrentPaddedUnits(h);
  std::vector<float> transposed(static_cast<size_t>(h) * gates * padded, 0.0f);
  for (int row = 0; row < gates * h; ++row) {  // row q*H + j is unit j of gate q's panels
    const int gate = row / h;
    const int unit = row % h;
    const int panel = unit / kPanelUnits;
    const int width = std::min(kPanelUnits, padded - panel * kPanelUnits);
    float* target = transposed.data() + static_cast<size_t>(gate) * padded * h +
                    static_cast<size_t>(panel) * kPanelUnits * h + unit % kPanelUnits;
    for (int p = 0; p < h; ++p) {
      target[static_cast<size_t>(p) * width] = w_hh[static_cast<size_t>(row) * h + p];
    }
  }
  return transposed;
}

void RecurrentCellStep(const CellStep& step, const float* panels, float* recurrent, int first,
                       int end) {
  const int h = step.hidden;
  const int gate_count = GateCount(step.cell);
  const int padded = RecurrentPaddedUnits(h);
  const int stride = gate_count * padded;  // of `recurrent`'s rows
  const int n = step.items;
  for (int gate = 0; gate < gate_count; ++gate) {
    RecurrentProduct(panels + static_cast<size_t>(gate) * padded * h, padded, h, first, end,
                     step.previous, h, n, recurrent + gate * padded, stride);
  }
  end = std::min(end, h);
  for (int item = 0; item < n; ++item) {
    // This item's gates (input's share), W_hh h, state, and output, unit j at index j.
    const float* x = step.gates + item * step.gates_stride;
    const float* r = recurrent + static_cast<size_t>(item) * stride;
    const float* state = step.previous + static_cast<size_t>(item) * h;
    float* next_state = step.next + static_cast<size_t>(item) * h;
    float* output = step.output + item * step.output_stride;
    switch (step.cell) {
      case Cell::kLstm:
        LstmGates(first, end, h, padded, x, r, step.cell_state + static_cast<size_t>(item) * h,
                  next_state, output);
        break;
      case Cell::kGru:
        GruGates(first, end, h, padded, x, r, step.b_hn, state, next_state, output);
        break;
      case Cell::kRnnTanh:
      case Cell::kRnnRelu:
        RnnGates(first, end, step.cell == Cell::kRnnRelu, x, r, next_state, output);
        break;
    }
  }
}

void RecurrentCellStepReference(const CellStep& step, const std::vector<float>& w_hh) {
  const int h = step.hidden;
  const auto sigmoid = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
  for (int item = 0; item < step.items; ++item) {
    const float* x = step.gates + item * step.gates_stride;
    const float* state = step.previous + static_cast<size_t>(item) * h;
    // W_hh h for gate q of unit j: row q*H + j of W_hh times the state.
    const auto recurrent = [&](int gate, int unit) {
      const float* row = w_hh.data() + (static_cast<size_t>(gate) * h + unit) * h;
      double sum = 0.0;
      for (int p = 0; p < h; ++p) sum += static_cast<double>(row[p]) * state[p];
      return sum;
    };
    for (int j = 0; j < h; ++j) {
      // The gate's input share plus W_hh h, gate q of unit j.
      const auto gate = [&](int q) { return x[q * h + j] + recurrent(q, j); };
      double value = 0.0;
      switch (step.cell) {
        case Cell::kLstm: {
          float& cell = step.cell_state[static_cast<size_t>(item) * h + j];
          const double c = sigmoid(gate(1)) * cell + sigmoid(gate(0)) * std::tanh(gate(2));
          cell = static_cast<float>(c);
          value = sigmoid(gate(3)) * std::tanh(c);
          break;
        }
        case Cell::kGru: {
          const double reset = sigmoid(gate(0));
          const double update = sigmoid(gate(1));
          const double candidate =
              std::tanh(x[2 * h + j] + reset * (recurrent(2, j) + step.b_hn[j]));
          value = (1.0 - update) * candidate + update * state[j];
          break;
        }
        case Cell::kRnnTanh:
          value = std::tanh(gate(0));
          break;
        case Cell::kRnnRelu:
          value = std::max(gate(0), 0.0);
          break;
      }
      step.next[static_cast<size_t>(item) * h + j] = static_cast<float>(value);
      step.output[item * step.output_stride + j] = static_cast<float>(value);
    }
  }
}

}  // namespace lumen
