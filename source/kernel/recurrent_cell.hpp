// The cell of nn.LSTM, nn.GRU and nn.RNN: one time step of one direction, given the input's share
// of every gate (the layer computes it for all steps at once, by one GEMM). The step adds W_hh h
// of the previous state to the gates and applies PyTorch's gate math:
//   LSTM (gates i, f, g, o):  c = sigmoid(f) c + sigmoid(i) tanh(g);  h = sigmoid(o) tanh(c)
//   GRU (gates r, z, n):      n = tanh(x_n + sigmoid(r) (W_hn h + b_hn));  h = (1 - z) n + z h
//   RNN:                      h = tanh or relu(x + W_hh h + b)
#ifndef LUMEN_KERNEL_RECURRENT_CELL_HPP_
#define LUMEN_KERNEL_RECURRENT_CELL_HPP_

#include <cstddef>
#include <vector>

namespace lumen {

// Which recurrent cell.
enum class Cell { kLstm, kGru, kRnnTanh, kRnnRelu };

// The gates a cell computes per hidden unit (4, 3 or 1).
int GateCount(Cell cell);

// Hidden units the fast step handles together (one SIMD vector): a step's blocks of units start
// at multiples of it.
#if defined(__AVX512F__)
inline constexpr int kRecurrentUnitStep = 16;
#else
inline constexpr int kRecurrentUnitStep = 8;
#endif

// Hidden units rounded up to whole vectors: the column count of each gate in the packed W_hh^T.
int RecurrentPaddedUnits(int hidden);

// W_hh (row-major, G*H x H, as PyTorch stores it) packed for RecurrentCellStep: transposed, gate
// by gate, each gate's units padded to whole vectors and cut into panels stored one after another.
std::vector<float> PackRecurrentWeights(const std::vector<float>& w_hh, Cell cell, int hidden);

// One time step of one direction for every item of the batch: what it reads and writes.
struct CellStep {
  Cell cell = Cell::kLstm;
  int hidden = 0;                   // H
  int items = 0;                    // N
  const float* b_hn = nullptr;      // GRU: b_hn (H), which r multiplies with W_hn h
  const float* gates = nullptr;     // the input's share of item n's gates: gate q of unit j at
  size_t gates_stride = 0;          //   gates[n * gates_stride + q * H + j]
  const float* previous = nullptr;  // N x H, row-major: the state after the previous step
  float* next = nullptr;            // N x H: the state after this step
  float* cell_state = nullptr;      // LSTM: N x H, updated in place
  float* output = nullptr;          // unit j of item n at output[n * output_stride + j]
  size_t output_stride = 0;
};

// The fast step for hidden units [first, end) (multiples of kRecurrentUnitStep; `end` may pass
// H), so that threads can share a step's units: W_hh h streamed from `panels`
// (PackRecurrentWeights) for several items at once into `recurrent` (scratch of
// N x G * RecurrentPaddedUnits(H) floats), then the gate math on FastExp, which vectorises.
void RecurrentCellStep(const CellStep& step, const float* panels, float* recurrent, int first,
                       int end);

// The definition, unit by unit, from W_hh as PyTorch stores it, in double with std::exp and
// std::tanh: the reference.
void RecurrentCellStepReference(const CellStep& step, const std::vector<float>& w_hh);

}  // namespace lumen

#endif  // LUMEN_KERNEL_RECURRENT_CELL_HPP_
