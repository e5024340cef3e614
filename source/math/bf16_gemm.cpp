#include "math/bf16_gemm.hpp"

#include <glog/logging.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "base/bfloat16.hpp"
#include "base/cpu_features.hpp"
#include "base/thread_pool.hpp"
#include "lumen/error.hpp"
#include "math/amx_tiles.hpp"
#include "math/bf16_gemm_kernels.hpp"
#include "math/packed_gemm.hpp"

namespace lumen {
namespace {

// Row panels packed at a time: enough rows to reuse each weight panel (the weights are read once
// per block), few enough for the packed block and its outputs to stay in the L2 cache.
constexpr int kBlockPanels = 4;
constexpr int kBlockRows = kBlockPanels * kBf16PanelRows;
// Pairs per slice of the shared dimension: a slice of a row panel (16 KB) stays in L1 while it
// meets every weight panel; the slices' sums add up in the block's sums.
constexpr int kSlicePairs = 128;

// The fp32 values of a cell's two halves.
float EvenValue(uint32_t cell) { return BFloat16ToFloat(static_cast<uint16_t>(cell & 0xFFFFu)); }
float OddValue(uint32_t cell) { return BFloat16ToFloat(static_cast<uint16_t>(cell >> 16)); }

Bf16MicroKernel MicroKernelFor(Bf16Isa isa) {
  switch (isa) {
    case Bf16Isa::kAmxBf16:
      return AmxBf16MicroKernel;
    case Bf16Isa::kAvx512Bf16:
      return Avx512Bf16MicroKernel;
    case Bf16Isa::kGeneric:
      break;
  }
  return GenericBf16MicroKernel;
}

// Throws lumen::Error for weights no product can use: none packed, or packed for a kernel this
// CPU lacks. `what` names the product in the message.
void CheckWeights(const char* what, const Bf16PackedWeights& weights) {
  if (weights.channels() == 0) throw Error(Concat(what, ": expected packed weights, got none"));
  if (!Bf16IsaAvailable(weights.isa())) {
    throw Error(Concat(what, ": weights packed for ", Bf16IsaName(weights.isa()),
                       ", which this CPU cannot run (", DetectedCpuFeatures().Describe(), ")"));
  }
}

// Rows rounded up to whole row panels.
int PaddedRows(int rows) { return (rows + kBf16PanelRows - 1) / kBf16PanelRows * kBf16PanelRows; }
// The pairs of depth k that the kernel `isa` multiplies: whole AMX blocks for AMX.
int PairsFor(int k, Bf16Isa isa) {
  const int pairs = (k + 1) / 2;
  if (isa != Bf16Isa::kAmxBf16) return pairs;
  return (pairs + kAmxBlockPairs - 1) / kAmxBlockPairs * kAmxBlockPairs;
}

}  // namespace

void GenericBf16MicroKernel(int pairs, const uint32_t* a, const uint32_t* b, float* sums, int ld,
                            bool accumulate) {
  float tile[kBf16PanelColumns][kBf16PanelRows] = {};  // the earlier sums are added at the end
  for (int pair = 0; pair < pairs; ++pair, a += kBf16PanelRows, b += kBf16PanelColumns) {
    for (int j = 0; j < kBf16PanelColumns; ++j) {
      const float weight_even = EvenValue(b[j]);
      const float weight_odd = OddValue(b[j]);
      for (int i = 0; i < kBf16PanelRows; ++i) {
        tile[j][i] += OddValue(a[i]) * weight_odd;
        tile[j][i] += EvenValue(a[i]) * weight_even;
      }
    }
  }
  for (int j = 0; j < kBf16PanelColumns; ++j) {
    for (int i = 0; i < kBf16PanelRows; ++i) {
      sums[j * ld + i] = accumulate ? sums[j * ld + i] + tile[j][i] : tile[j][i];
    }
  }
}

void GenericBf16PanelVector(int pairs, const uint32_t* row, const uint32_t* panel, float* sums) {
  float columns[kBf16PanelColumns] = {};
  for (int pair = 0; pair < pairs; ++pair, panel += kBf16PanelColumns) {
    const float value_even = EvenValue(row[pair]);
    const float value_odd = OddValue(row[pair]);
    for (int j = 0; j < kBf16PanelColumns; ++j) {
      columns[j] += OddValue(panel[j]) * value_odd;
      columns[j] += EvenValue(panel[j]) * value_even;
    }
  }
  std::copy(columns, columns + kBf16PanelColumns, sums);
}

Bf16Isa BestBf16Isa() {
  if (Bf16IsaAvailable(Bf16Isa::kAmxBf16)) return Bf16Isa::kAmxBf16;
  return Bf16IsaAvailable(Bf16Isa::kAvx512Bf16) ? Bf16Isa::kAvx512Bf16 : Bf16Isa::kGeneric;
}

bool Bf16IsaAvailable(Bf16Isa isa) {
  const CpuFeatures& features = DetectedCpuFeatures();
  switch (isa) {
    case Bf16Isa::kAmxBf16:
      return features.amx_bf16;
    case Bf16Isa::kAvx512Bf16:
      return features.avx512f && features.avx512_bf16;
    case Bf16Isa::kGeneric:
      break;
  }
  return true;
}

const char* Bf16IsaName(Bf16Isa isa) {
  switch (isa) {
    case Bf16Isa::kAmxBf16:
      return "AMX-BF16";
    case Bf16Isa::kAvx512Bf16:
      return "AVX512-BF16";
    case Bf16Isa::kGeneric:
      break;
  }
  return "generic";
}

bool Bf16GemmIsFast() {
  // AMX's tiles make about six times the FMA's products on the CPUs that have them.
  if (Bf16IsaAvailable(Bf16Isa::kAmxBf16)) return true;
  if (!Bf16IsaAvailable(Bf16Isa::kAvx512Bf16)) return false;
  // Measured once per process, not read off the CPU's name: what decides is how many products
  // vdpbf16ps makes per cycle against the FMA (see MeasureAvx512Bf16ProductRates). Bf16 products
  // also halve the weights' memory traffic, so they must make at least a quarter more products
  // to pay for packing the activations into bf16 (Emerald Rapids: half as many, 1.44x fp32's time).
  static const bool doubles_the_products = [] {
    const Bf16ProductRates rates = MeasureAvx512Bf16ProductRates();
    return rates.bf16 >= 1.25 * rates.fp32;
  }();
  return doubles_the_products;
}

bool Bf16ProductsWanted() {
  const char* asked = std::getenv("LUMEN_BF16_PRODUCTS");
  if (asked != nullptr && std::string(asked) == "on") return true;
  if (asked != nullptr && std::string(asked) == "off") return false;
  return Bf16GemmIsFast();
}

Bf16PackedWeights::Bf16PackedWeights(const float* weights, int n, int k, int ldw, Bf16Isa isa)
    : depth_(k), channels_(n), isa_(isa) {
  if (n <= 0 || k <= 0 || ldw < k) {
    throw Error(Concat("bf16 weights: expected n > 0, k > 0 and ldw >= k, got n = ", n, ", k = ", k,
                       ", ldw = ", ldw));
  }
  pairs_ = PairsFor(k, isa);
  const int columns = panel_columns();
  cells_.assign(static_cast<size_t>(column_panels()) * pairs_ * columns, 0);
  for (int j = 0; j < n; ++j) {
    const float* channel = weights + static_cast<size_t>(j) * ldw;
    uint32_t* panel = cells_.data() + static_cast<size_t>(j / columns) * pairs_ * columns;
    for (int pair = 0; pair < (k + 1) / 2; ++pair) {
      const int p = 2 * pair;
      // Vector kernels: pair-major rows of the panel's channels. AMX: blocks of 16 pairs, each
      // channel-major (a tile row is one channel's 16 pairs).
      const size_t cell =
          isa == Bf16Isa::kAmxBf16
              ? static_cast<size_t>(pair / kAmxBlockPairs) * kAmxBlockPairs * columns +
                    (j % columns) * kAmxBlockPairs + pair % kAmxBlockPairs
              : static_cast<size_t>(pair) * columns + j % columns;
      panel[cell] = Bf16Pair(channel[p], p + 1 < k ? channel[p + 1] : 0.0f);
    }
  }
}

size_t Bf16PackedRowsCells(int m, int pairs) { return static_cast<size_t>(PaddedRows(m)) * pairs; }

void RepackBf16Rows(const float* packed_rows, int m, int k, int pairs, uint32_t* packed) {
  static_assert(kBf16PanelRows % kPanelRows == 0, "a bf16 panel spans whole fp32 panels");
  CHECK_GE(pairs, (k + 1) / 2);
  const int panels = (m + kBf16PanelRows - 1) / kBf16PanelRows;
  for (int panel = 0; panel < panels; ++panel) {
    const int first = panel * kBf16PanelRows;
    for (int pair = 0; pair < pairs; ++pair) {
      const int p = 2 * pair;
      uint32_t* target = packed + (static_cast<size_t>(panel) * pairs + pair) * kBf16PanelRows;
      const int valid = p < k ? std::min(kBf16PanelRows, m - first) : 0;
      // An fp32 panel's rows of one k-step are contiguous: whole runs of kPanelRows.
      for (int start = 0; start < valid; start += kPanelRows) {
        const int count = std::min(kPanelRows, valid - start);
        const float* even = packed_rows + PackedRowIndex(first + start, p, k);
        uint32_t* cells = target + start;
        if (p + 1 < k) {
          const float* odd = even + kPanelRows;  // the next k-step of the same panel
          for (int i = 0; i < count; ++i) cells[i] = Bf16Pair(even[i], odd[i]);
        } else {
          for (int i = 0; i < count; ++i) cells[i] = Bf16Pair(even[i], 0.0f);
        }
      }
      std::fill(target + valid, target + kBf16PanelRows, 0u);
    }
  }
}

void PackBf16Rows(const float* a, int lda, int m, int k, int pairs, uint32_t* packed) {
  CHECK_GE(pairs, (k + 1) / 2);
  const int panels = (m + kBf16PanelRows - 1) / kBf16PanelRows;
  // Pair by pair: the two columns of A it reads are contiguous runs of m floats. Pairs past the
  // depth (AMX's whole blocks) are all padding.
  for (int pair = 0; pair < pairs; ++pair) {
    const int p = 2 * pair;
    const float* even = p < k ? a + static_cast<size_t>(p) * lda : nullptr;
    const float* odd = p + 1 < k ? even + lda : nullptr;
    for (int panel = 0; panel < panels; ++panel) {
      const int first = panel * kBf16PanelRows;
      const int valid = even != nullptr ? std::min(kBf16PanelRows, m - first) : 0;
      uint32_t* target = packed + (static_cast<size_t>(panel) * pairs + pair) * kBf16PanelRows;
      if (odd != nullptr) {
        for (int i = 0; i < valid; ++i) target[i] = Bf16Pair(even[first + i], odd[first + i]);
      } else {
        for (int i = 0; i < valid; ++i) target[i] = Bf16Pair(even[first + i], 0.0f);
      }
      std::fill(target + valid, target + kBf16PanelRows, 0u);
    }
  }
}

namespace {

// What Bf16Gemm adds to each output once its sums are complete: the bias (may be null) and the
// activation.
struct TileFinish {
  const float* bias;
  const Activation* activation;
};

// Applies `finish` to the rows x columns outputs at target (column j at target + j * ldc), the
// first of them output channel first_column: right after the micro-kernel wrote them, while they
// are in the L1 cache (a pass over the block afterwards read them back from L2).
void FinishTile(const TileFinish& finish, int first_column, int rows, int columns, float* target,
                int ldc) {
  WithActivation(*finish.activation, [&](auto function) {
    for (int j = 0; j < columns; ++j) {
      const float offset = finish.bias == nullptr ? 0.0f : finish.bias[first_column + j];
      float* out = target + static_cast<size_t>(j) * ldc;
      for (int i = 0; i < rows; ++i) out[i] = function(out[i] + offset);
    }
  });
}

// Bf16GemmPacked, finishing each tile after its last slice of pairs when `finish` is not null.
void MultiplyPanels(int m, const uint32_t* packed_a, const Bf16PackedWeights& weights,
                    int first_panel, int end_panel, float* c, int ldc, const TileFinish* finish) {
  const int n = weights.channels();
  const int pairs = weights.pairs();
  const int columns_per_panel = weights.panel_columns();
  const Bf16MicroKernel micro_kernel = MicroKernelFor(weights.isa());
  const bool amx = weights.isa() == Bf16Isa::kAmxBf16;
  if (amx) AmxTilesBegin();
  const int row_panels = (m + kBf16PanelRows - 1) / kBf16PanelRows;
  for (int first_pair = 0; first_pair < pairs; first_pair += kSlicePairs) {
    const int slice = std::min(kSlicePairs, pairs - first_pair);
    const bool accumulate = first_pair > 0;
    for (int row_panel = 0; row_panel < row_panels; ++row_panel) {
      const uint32_t* a =
          packed_a + (static_cast<size_t>(row_panel) * pairs + first_pair) * kBf16PanelRows;
      const int first_row = row_panel * kBf16PanelRows;
      const int rows = std::min(kBf16PanelRows, m - first_row);
      for (int panel = first_panel; panel < end_panel; ++panel) {
        const uint32_t* b =
            weights.panel(panel) + static_cast<size_t>(first_pair) * columns_per_panel;
        const int columns = std::min(columns_per_panel, n - panel * columns_per_panel);
        float* target = c + first_row + static_cast<size_t>(panel) * columns_per_panel * ldc;
        const bool last_slice = first_pair + slice == pairs;
        if (rows == kBf16PanelRows && columns == columns_per_panel) {
          micro_kernel(slice, a, b, target, ldc, accumulate);
          if (finish != nullptr && last_slice) {
            FinishTile(*finish, panel * columns_per_panel, rows, columns, target, ldc);
          }
          continue;
        }
        // A tile over C's edge: through a full tile on the stack, so that nothing past the
        // edge is written.
        float tile[kAmxPanelColumns * kBf16PanelRows] = {};
        for (int j = 0; j < columns && accumulate; ++j) {
          std::copy(target + static_cast<size_t>(j) * ldc,
                    target + static_cast<size_t>(j) * ldc + rows, tile + j * kBf16PanelRows);
        }
        micro_kernel(slice, a, b, tile, kBf16PanelRows, accumulate);
        for (int j = 0; j < columns; ++j) {
          std::copy(tile + j * kBf16PanelRows, tile + j * kBf16PanelRows + rows,
                    target + static_cast<size_t>(j) * ldc);
        }
        if (finish != nullptr && last_slice) {
          FinishTile(*finish, panel * columns_per_panel, rows, columns, target, ldc);
        }
      }
    }
  }
  if (amx) AmxTilesEnd();
}

}  // namespace

void Bf16GemmPacked(int m, const uint32_t* packed_a, const Bf16PackedWeights& weights,
                    int first_panel, int end_panel, float* c, int ldc) {
  MultiplyPanels(m, packed_a, weights, first_panel, end_panel, c, ldc, nullptr);
}

void Bf16Gemm(int m, const float* a, int lda, const Bf16PackedWeights& weights, const float* bias,
              const Activation& activation, float* c, int ldc, const ComputeContext& context) {
  CheckWeights("bf16 GEMM", weights);
  if (m < 0 || lda < m || ldc < m) {
    throw Error(Concat("bf16 GEMM: expected m >= 0 and leading dimensions >= m, got m = ", m,
                       ", lda = ", lda, ", ldc = ", ldc));
  }
  if (m == 0) return;
  const int k = weights.depth();
  const int column_panels = weights.column_panels();
  const int row_blocks = (m + kBlockRows - 1) / kBlockRows;
  // Few blocks of rows (a late layer's small map): the threads share the column panels too.
  const int threads = context.threads();
  const int column_parts =
      row_blocks >= threads ? 1 : std::min(column_panels, (threads + row_blocks - 1) / row_blocks);
  const int tasks = row_blocks * column_parts;
  ParallelFor(
      context.pool, tasks,
      [&](std::ptrdiff_t task_index) {
        const int task = static_cast<int>(task_index);
        const int part = task % column_parts;
        const int first_panel = column_panels * part / column_parts;
        const int end_panel = column_panels * (part + 1) / column_parts;
        const int first_row = task / column_parts * kBlockRows;
        const int rows = std::min(kBlockRows, m - first_row);
        auto* packed = reinterpret_cast<uint32_t*>(
            context.Scratch(ScratchSlot::kGemmPacking, Bf16PackedRowsCells(rows, weights.pairs())));
        PackBf16Rows(a + first_row, lda, rows, k, weights.pairs(), packed);
        // The bias and the activation tile by tile, as each tile's sums are complete.
        const TileFinish finish{bias, &activation};
        const bool finishes = bias != nullptr || activation.kind != Activation::Kind::kIdentity;
        MultiplyPanels(rows, packed, weights, first_panel, end_panel, c + first_row, ldc,
                       finishes ? &finish : nullptr);
      },
      Schedule::kDynamic, tasks > 1);
}

void Bf16MatrixVector(const float* x, int stride, const Bf16PackedWeights& weights,
                      const float* bias, const Activation& activation, float* y,
                      const ComputeContext& context) {
  CheckWeights("bf16 matrix-vector", weights);
  const int k = weights.depth();
  const int n = weights.channels();
  auto* row = reinterpret_cast<uint32_t*>(
      context.Scratch(ScratchSlot::kGemmPacking, Bf16MatrixVectorScratchSize(weights)));
  for (int pair = 0; pair < weights.pairs(); ++pair) {
    const int p = 2 * pair;
    row[pair] = p >= k ? 0u
                       : Bf16Pair(x[static_cast<size_t>(p) * stride],
                                  p + 1 < k ? x[static_cast<size_t>(p + 1) * stride] : 0.0f);
  }
  const Bf16PanelVector panel_vector = weights.isa() == Bf16Isa::kAmxBf16 ? Avx512Bf16AmxPanelVector
                                       : weights.isa() == Bf16Isa::kAvx512Bf16
                                           ? Avx512Bf16PanelVector
                                           : GenericBf16PanelVector;
  const int columns_per_panel = weights.panel_columns();
  const int panels = weights.column_panels();
  // A few panels per task: each task streams its share of the weights once.
  constexpr int kPanelsPerTask = 8;
  const int tasks = (panels + kPanelsPerTask - 1) / kPanelsPerTask;
  ParallelFor(
      context.pool, tasks,
      [&](std::ptrdiff_t task) {
        const int first_panel = static_cast<int>(task) * kPanelsPerTask;
        const int end_panel = std::min(panels, first_panel + kPanelsPerTask);
        WithActivation(activation, [&](auto function) {
          for (int panel = first_panel; panel < end_panel; ++panel) {
            float sums[kAmxPanelColumns];
            panel_vector(weights.pairs(), row, weights.panel(panel), sums);
            const int first = panel * columns_per_panel;
            for (int j = first; j < std::min(n, first + columns_per_panel); ++j) {
              y[j] = function(sums[j - first] + (bias == nullptr ? 0.0f : bias[j]));
            }
          }
        });
      },
      Schedule::kStatic, static_cast<size_t>(n) * k >= (size_t{1} << 15));
}

size_t Bf16MatrixVectorScratchSize(const Bf16PackedWeights& weights) {
  return static_cast<size_t>(weights.pairs());
}

size_t Bf16GemmScratchSize(int m, const Bf16PackedWeights& weights) {
  return Bf16PackedRowsCells(std::min(m, kBlockRows), weights.pairs());
}

void ReferenceBf16Gemm(int m, int n, int k, const float* a, int lda, const float* weights, int ldw,
                       const float* bias, const Activation& activation, float* c, int ldc) {
  const auto rounded = [](float value) { return double{BFloat16ToFloat(FloatToBFloat16(value))}; };
  WithActivation(activation, [&](auto function) {
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < m; ++i) {
        double sum = 0.0;
        for (int p = 0; p < k; ++p) {
          sum += rounded(a[i + static_cast<size_t>(p) * lda]) *
                 rounded(weights[static_cast<size_t>(j) * ldw + p]);
        }
        c[i + static_cast<size_t>(j) * ldc] =
            function(static_cast<float>(sum) + (bias == nullptr ? 0.0f : bias[j]));
      }
    }
  });
}

}  // namespace lumen
