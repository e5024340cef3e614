// The recurrent cell kernel against its reference (the definition from W_hh as PyTorch stores
// it, in double with std::exp and std::tanh): every cell, hidden sizes below, at and past a
// vector and a panel, one and several items, the step's units split into blocks shared by 1 and
// 2 threads as the layer shares them, and several steps in a row.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "base/thread_pool.hpp"
#include "kernel/recurrent_cell.hpp"
#include "support/kernel_testing.hpp"

namespace lumen {
namespace {

using test_support::ExpectAgree;
using test_support::RandomValues;

std::string CellName(Cell cell) {
  switch (cell) {
    case Cell::kLstm:
      return "lstm";
    case Cell::kGru:
      return "gru";
    case Cell::kRnnTanh:
      return "rnn_tanh";
    case Cell::kRnnRelu:
      return "rnn_relu";
  }
  return "";
}

// Runs `steps` steps of one cell with the fast kernel (units in `blocks` blocks on `threads`
// threads) and with the reference, from the same weights, gates and initial states, and compares
// the outputs, the final state and the LSTM cell state.
void CheckCell(Cell cell, int hidden, int items, int blocks, int threads) {
  constexpr int kSteps = 3;
  std::mt19937 generator(hidden * 100 + items);
  const int gate_count = GateCount(cell);
  const size_t gh = static_cast<size_t>(gate_count) * hidden;
  const size_t states = static_cast<size_t>(items) * hidden;
  const std::vector<float> w_hh = RandomValues(gh * hidden, &generator, -0.5f, 0.5f);
  const std::vector<float> b_hn = RandomValues(hidden, &generator);
  // The input's share of the gates: item n of step t at (t * items + n) * gh.
  const std::vector<float> gates = RandomValues(kSteps * items * gh, &generator, -2.0f, 2.0f);
  const std::vector<float> h0 = RandomValues(states, &generator);
  const std::vector<float> c0 = RandomValues(states, &generator);
  const std::vector<float> panels = PackRecurrentWeights(w_hh, cell, hidden);
  std::vector<float> recurrent(static_cast<size_t>(items) * gate_count *
                               RecurrentPaddedUnits(hidden));
  ThreadPool pool(threads);

  // Each run keeps its own states (previous, next), cell state and outputs.
  struct Run {
    std::vector<float> hidden[2];
    std::vector<float> cell;
    std::vector<float> output;
  };
  Run fast{{h0, h0}, c0, std::vector<float>(kSteps * states)};
  Run reference = fast;
  for (int t = 0; t < kSteps; ++t) {
    for (Run* run : {&fast, &reference}) {
      CellStep step;
      step.cell = cell;
      step.hidden = hidden;
      step.items = items;
      step.b_hn = b_hn.data();
      step.gates = gates.data() + t * items * gh;
      step.gates_stride = gh;
      step.previous = run->hidden[t % 2].data();
      step.next = run->hidden[1 - t % 2].data();
      step.cell_state = run->cell.data();
      step.output = run->output.data() + t * states;
      step.output_stride = hidden;
      if (run == &reference) {
        RecurrentCellStepReference(step, w_hh);
        continue;
      }
      const int vectors = RecurrentPaddedUnits(hidden) / kRecurrentUnitStep;
      const int used_blocks = std::min(blocks, vectors);
      ParallelFor(&pool, used_blocks, [&](std::ptrdiff_t block) {
        const int first = vectors * static_cast<int>(block) / used_blocks * kRecurrentUnitStep;
        const int end = vectors * (static_cast<int>(block) + 1) / used_blocks * kRecurrentUnitStep;
        RecurrentCellStep(step, panels.data(), recurrent.data(), first, end);
      });
    }
  }
  const std::string where = CellName(cell) + " hidden " + std::to_string(hidden) + ", " +
                            std::to_string(items) + " item(s), " + std::to_string(blocks) +
                            " block(s) on " + std::to_string(threads) + " thread(s)";
  // FastExp and FastTanh in float against std::exp and std::tanh in double, over three steps.
  ExpectAgree(fast.output, "RecurrentCellStep", reference.output, "RecurrentCellStepReference",
              1e-5f, 1e-4f, where + ", outputs");
  ExpectAgree(fast.hidden[kSteps % 2], "RecurrentCellStep", reference.hidden[kSteps % 2],
              "RecurrentCellStepReference", 1e-5f, 1e-4f, where + ", final state");
  if (cell == Cell::kLstm) {
    ExpectAgree(fast.cell, "RecurrentCellStep", reference.cell, "RecurrentCellStepReference", 1e-5f,
                1e-4f, where + ", cell state");
  }
}

TEST(RecurrentCellKernel, MatchesReference) {
  for (Cell cell : {Cell::kLstm, Cell::kGru, Cell::kRnnTanh, Cell::kRnnRelu}) {
    for (int hidden : {1, 5, 8, 17, 64, 70}) {
      for (int items : {1, 3, 6}) CheckCell(cell, hidden, items, 1, 1);
    }
  }
}

TEST(RecurrentCellKernel, BlocksOfUnitsOnTwoThreadsMatchReference) {
  for (Cell cell : {Cell::kLstm, Cell::kGru, Cell::kRnnTanh}) {
    for (int hidden : {17, 70, 130}) CheckCell(cell, hidden, 5, 4, 2);
  }
}

TEST(RecurrentCellKernel, PaddedUnitsAreWholeVectors) {
  EXPECT_EQ(RecurrentPaddedUnits(1), kRecurrentUnitStep);
  EXPECT_EQ(RecurrentPaddedUnits(kRecurrentUnitStep), kRecurrentUnitStep);
  EXPECT_EQ(RecurrentPaddedUnits(kRecurrentUnitStep + 1), 2 * kRecurrentUnitStep);
  EXPECT_EQ(GateCount(Cell::kLstm), 4);
  EXPECT_EQ(GateCount(Cell::kGru), 3);
  EXPECT_EQ(GateCount(Cell::kRnnRelu), 1);
}

}  // namespace
}  // namespace lumen
