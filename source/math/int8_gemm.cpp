#include "math/int8_gemm.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "base/cpu_features.hpp"
#include "lumen/error.hpp"
#include "math/int8_gemm_kernels.hpp"

namespace lumen {
namespace {

// Row panels packed at a time, as math/packed_gemm: enough rows to reuse each weight panel well,
// few enough for the packed block to stay in the L2 cache.
constexpr int kBlockPanels = 4;
// The most rows of a block: kBlockPanels panels of the tallest kernel's (VNNI's 32 rows).
constexpr int kMostBlockRows = kBlockPanels * 32;

// k-steps per slice of the shared dimension: a slice of an A panel (16 KB: 16 rows of int16 or 32
// rows of bytes) stays in L1 while it meets every weight panel, and the slices' int32 sums add up
// in the block's sums buffer. A multiple of every kernel's block of groups (AMX's: 64 k-steps).
constexpr int kSliceDepth = 512;

// Whether a scale is usable: a zero, negative, infinite or NaN scale makes every value wrong.
bool IsPositiveFinite(float value) { return std::isfinite(value) && value > 0.0f; }

// Throws lumen::Error unless the scale is positive and finite and the zero point a byte.
void CheckQuantization(const Uint8Quantization& quantization) {
  if (!IsPositiveFinite(quantization.scale)) {
    throw Error(
        Concat("int8 GEMM: expected a positive finite activation scale, got ", quantization.scale));
  }
  if (quantization.zero_point < 0 || quantization.zero_point > 255) {
    throw Error(Concat("int8 GEMM: expected an activation zero point in [0, 255], got ",
                       quantization.zero_point));
  }
}

// Rounds to the nearest integer, ties to even, for |value| < 2^22 (the values here are clamped to
// [-255, 255] first): adding and subtracting 1.5 * 2^23 leaves no fraction bits, and the addition
// rounds as the FPU does, to even. Unlike std::nearbyint, a loop over it vectorises.
inline float RoundHalfEven(float value) {
  constexpr float kMagic = 12582912.0f;
  return (value + kMagic) - kMagic;
}

// The float epilogue, shared by the kernels and the reference so that both round alike: for rows
// i < rows and columns j in [first_column, end_column), with t = j - first_column,
//   c[i + t * ldc] = f(float(sums[i + t * ld] - zero_point * S[j]) * (scale_a * scale_w[j]) + b[j])
// with S = weight_sums (null: sums already corrected) and b = bias (null: none). One dispatch on
// the activation per block: a matrix-vector block is one row of many columns.
void DequantizeBlock(const int32_t* sums, int ld, int rows, int first_column, int end_column,
                     const int32_t* weight_sums, int zero_point, float a_scale,
                     const float* w_scales, const float* bias, const Activation& activation,
                     float* c, int ldc) {
  // LESSON 17 BEGIN: c = f((sum - zero_point * S[j]) * scale_a * scale_w[j] + bias[j])
  WithActivation(activation, [&](auto function) {
    if (rows == 1 && ld == 1 && ldc == 1) {  // one row of contiguous columns: vectorise along it
      for (int j = first_column; j < end_column; ++j) {
        const int32_t correction = weight_sums == nullptr ? 0 : zero_point * weight_sums[j];
        const float offset = bias == nullptr ? 0.0f : bias[j];
        c[j - first_column] = function(static_cast<float>(sums[j - first_column] - correction) *
                                           (a_scale * w_scales[j]) +
                                       offset);
      }
      return;
    }
    for (int j = first_column; j < end_column; ++j) {
      const int32_t correction = weight_sums == nullptr ? 0 : zero_point * weight_sums[j];
      const float scale = a_scale * w_scales[j];
      const float offset = bias == nullptr ? 0.0f : bias[j];
      const int32_t* column = sums + static_cast<size_t>(j - first_column) * ld;
      float* out = c + static_cast<size_t>(j - first_column) * ldc;
      for (int i = 0; i < rows; ++i) {
        out[i] = function(static_cast<float>(column[i] - correction) * scale + offset);
      }
    }
  });
  // LESSON 17 END
}

// QuantizeToUint8 without the checks (the callers have made them).
void QuantizeValues(const float* input, size_t count, const Uint8Quantization& quantization,
                    uint8_t* output) {
  // LESSON 17 BEGIN: q = clamp(round_half_even(x / scale) + zero_point, 0, 255); NaN -> zero_point
  const float inverse_scale = 1.0f / quantization.scale;
  const float zero_point = static_cast<float>(quantization.zero_point);
  // Clamped before rounding, to integers, which gives the same result as after and keeps the
  // conversion to int defined for any input.
  const float low = -zero_point;
  const float high = 255.0f - zero_point;
  for (size_t i = 0; i < count; ++i) {
    float value = input[i] * inverse_scale;
    value = value == value ? value : 0.0f;  // NaN: the zero point
    value = std::min(std::max(value, low), high);
    output[i] = static_cast<uint8_t>(static_cast<int>(RoundHalfEven(value) + zero_point));
  }
  // LESSON 17 END
}

// Where one block's packed A and int32 sums live in the calling thread's scratch: the packed
// bytes first, then the sums (the scratch is floats, never read as floats here).
struct BlockScratch {
  uint8_t* packed;
  int32_t* sums;
};

// Bytes of `rows` rows of depth k packed into row panels, rounded up to a cache line.
size_t PackedBlockBytes(const Int8Kernel& kernel, int rows, int k) {
  const int panels = (rows + kernel.panel_rows - 1) / kernel.panel_rows;
  return (static_cast<size_t>(panels) * kernel.PanelBytes(k) + 63) / 64 * 64;
}

// int32 sums of a block: its rows and n columns, both rounded up to whole panels.
size_t SumsCount(const Int8Kernel& kernel, int rows, int n) {
  const int row_panels = (rows + kernel.panel_rows - 1) / kernel.panel_rows;
  const int column_panels = (n + kernel.panel_columns - 1) / kernel.panel_columns;
  return static_cast<size_t>(row_panels) * kernel.panel_rows * column_panels * kernel.panel_columns;
}

// Floats of scratch one block needs: its packed rows, then its sums.
size_t ScratchFloats(const Int8Kernel& kernel, int rows, int k, int n) {
  return (PackedBlockBytes(kernel, rows, k) + SumsCount(kernel, rows, n) * sizeof(int32_t)) /
         sizeof(float);
}

// The int32 sums of the packed rows (`rows` of them) with column panels [first_panel, end_panel),
// into `sums` (column j - first_panel * panel_columns at sums + that * ld, ld = the rows rounded up
// to whole panels), one slice of the shared dimension at a time.
void ComputeSums(const Int8Kernel& kernel, int rows, const uint8_t* packed,
                 const Int8PackedWeights& weights, int first_panel, int end_panel, int32_t* sums,
                 int ld) {
  const int k = weights.depth();
  const int groups = kernel.Groups(k);
  const int slice_groups = kSliceDepth / kernel.group_depth;
  const int row_panels = (rows + kernel.panel_rows - 1) / kernel.panel_rows;
  const size_t a_panel_bytes = static_cast<size_t>(kernel.PanelBytes(k));
  const size_t b_panel_bytes = static_cast<size_t>(groups) * kernel.panel_columns * 4;
  for (int first_group = 0; first_group < groups; first_group += slice_groups) {
    const int slice = std::min(slice_groups, groups - first_group);
    for (int row_panel = 0; row_panel < row_panels; ++row_panel) {
      const uint8_t* a = packed + row_panel * a_panel_bytes +
                         static_cast<size_t>(first_group) * kernel.panel_rows * 4;
      for (int panel = first_panel; panel < end_panel; ++panel) {
        const uint8_t* b = weights.data() + panel * b_panel_bytes +
                           static_cast<size_t>(first_group) * kernel.panel_columns * 4;
        int32_t* tile = sums +
                        static_cast<size_t>(panel - first_panel) * kernel.panel_columns * ld +
                        row_panel * kernel.panel_rows;
        kernel.micro_kernel(slice, a, b, tile, ld, first_group > 0);
      }
    }
  }
}

// Rows of A up to which the matrix-vector path runs, one row at a time: a row panel of 16 or 32
// rows would be mostly padding, computed and thrown away, while each row's pass over the
// weights does only useful products (a Linear at batch 1 took 3.8x fp32's matrix-vector time
// through the GEMM path).
constexpr int kMatrixVectorRows = 4;

// Scratch bytes of the matrix-vector path: one expanded row, then the sums of n columns.
size_t MatrixVectorScratchBytes(const Int8Kernel& kernel, int k, int n) {
  const size_t expanded = static_cast<size_t>(kernel.Groups(k)) * kernel.panel_columns * 4;
  const int column_panels = (n + kernel.panel_columns - 1) / kernel.panel_columns;
  return expanded + static_cast<size_t>(column_panels) * kernel.panel_columns * sizeof(int32_t);
}

// RunBlocks for the few rows of a matrix-vector product: the threads share the column panels;
// each row is finished as a block of one row (ld 1).
template <typename Finish>
void RunMatrixVector(const Int8Kernel& kernel, int m, const uint8_t* a, int lda,
                     const Int8PackedWeights& weights, const ComputeContext& context,
                     const Finish& finish) {
  const int k = weights.depth();
  const int n = weights.channels();
  const int groups = kernel.Groups(k);
  const int column_panels = (n + kernel.panel_columns - 1) / kernel.panel_columns;
  const size_t panel_bytes = static_cast<size_t>(groups) * kernel.panel_columns * 4;
  const int parts = std::max(1, std::min(column_panels, context.threads()));
  ParallelFor(
      context.pool, parts,
      [&](std::ptrdiff_t part) {
        const int first_panel = static_cast<int>(int64_t{column_panels} * part / parts);
        const int end_panel = static_cast<int>(int64_t{column_panels} * (part + 1) / parts);
        auto* scratch = reinterpret_cast<uint8_t*>(context.Scratch(
            ScratchSlot::kGemmPacking, MatrixVectorScratchBytes(kernel, k, n) / sizeof(float) + 1));
        auto* sums = reinterpret_cast<int32_t*>(scratch + panel_bytes);
        for (int row = 0; row < m; ++row) {
          kernel.expand_vector(a + row, lda, k, scratch);
          for (int panel = first_panel; panel < end_panel; ++panel) {
            kernel.panel_vector(groups, scratch, weights.data() + panel * panel_bytes,
                                sums + (panel - first_panel) * kernel.panel_columns);
          }
          finish(row, 1, first_panel * kernel.panel_columns,
                 std::min(n, end_panel * kernel.panel_columns), sums, 1);
        }
      },
      Schedule::kStatic, parts > 1);
}

// Runs the product block by block and calls finish(first_row, rows, first_column, end_column,
// sums, ld) for each block of rows, with the int32 sums of columns [first_column, end_column)
// (column j at sums + (j - first_column) * ld). Tasks own disjoint tiles of C: a share of the row
// panels times a share of the column panels, split as math/packed_gemm does, to read least.
template <typename Finish>
void RunBlocks(int m, const uint8_t* a, int lda, const Int8PackedWeights& weights,
               const ComputeContext& context, const Finish& finish) {
  const Int8Kernel& kernel = Int8KernelFor(weights.isa());
  if (m <= kMatrixVectorRows && kernel.panel_vector != nullptr) {
    RunMatrixVector(kernel, m, a, lda, weights, context, finish);
    return;
  }
  const int k = weights.depth();
  const int n = weights.channels();
  const int row_panels = (m + kernel.panel_rows - 1) / kernel.panel_rows;
  const int column_panels = (n + kernel.panel_columns - 1) / kernel.panel_columns;
  const int wanted = context.threads();
  // Each row part reads every weight panel it covers, each column part packs its own rows of A:
  // the split that reads fewest bytes (in units of k) wins.
  const auto column_parts_for = [&](int row_parts) {
    return std::min(column_panels, (wanted + row_parts - 1) / row_parts);
  };
  const auto bytes_read = [&](int row_parts) {
    return int64_t{row_parts} * n + int64_t{column_parts_for(row_parts)} * m;
  };
  int row_parts = 1;
  for (int parts = 2; parts <= std::min(row_panels, wanted); ++parts) {
    if (bytes_read(parts) < bytes_read(row_parts)) row_parts = parts;
  }
  const int column_parts = column_parts_for(row_parts);
  const int tasks = row_parts * column_parts;
  const auto share = [](int items, int parts, int part) {
    return static_cast<int>(int64_t{items} * part / parts);
  };
  const int block_rows = kBlockPanels * kernel.panel_rows;
  ParallelFor(
      context.pool, tasks,
      [&](std::ptrdiff_t task_index) {
        const int task = static_cast<int>(task_index);
        const int first_panel = share(column_panels, column_parts, task % column_parts);
        const int end_panel = share(column_panels, column_parts, task % column_parts + 1);
        const int first_column = first_panel * kernel.panel_columns;
        const int end_column = std::min(n, end_panel * kernel.panel_columns);
        const int row_part = task / column_parts;
        if (kernel.begin != nullptr) kernel.begin();
        const int end_row =
            std::min(m, share(row_panels, row_parts, row_part + 1) * kernel.panel_rows);
        for (int first_row = share(row_panels, row_parts, row_part) * kernel.panel_rows;
             first_row < end_row; first_row += block_rows) {
          const int rows = std::min(block_rows, end_row - first_row);
          auto* scratch = reinterpret_cast<uint8_t*>(
              context.Scratch(ScratchSlot::kGemmPacking,
                              ScratchFloats(kernel, rows, k, end_column - first_column)));
          const BlockScratch block{
              scratch, reinterpret_cast<int32_t*>(scratch + PackedBlockBytes(kernel, rows, k))};
          const int ld = (rows + kernel.panel_rows - 1) / kernel.panel_rows * kernel.panel_rows;
          kernel.pack_rows(a + first_row, lda, rows, k, block.packed);
          ComputeSums(kernel, rows, block.packed, weights, first_panel, end_panel, block.sums, ld);
          finish(first_row, rows, first_column, end_column, block.sums, ld);
        }
        if (kernel.end != nullptr) kernel.end();
      },
      Schedule::kDynamic, tasks > 1);
}

// Throws lumen::Error for arguments no product can run with: no weights, a leading dimension
// shorter than the rows, or weights packed for a kernel this CPU lacks.
void CheckGemmArguments(int m, int lda, int ldc, const Int8PackedWeights& weights) {
  if (weights.channels() == 0) throw Error("int8 GEMM: expected packed weights, got none");
  if (m < 0 || lda < m || ldc < m) {
    throw Error(Concat("int8 GEMM: expected m >= 0 and leading dimensions >= m, got m = ", m,
                       ", lda = ", lda, ", ldc = ", ldc));
  }
  if (!Int8IsaAvailable(weights.isa())) {
    throw Error(Concat("int8 GEMM: weights packed for ", Int8IsaName(weights.isa()),
                       ", which this CPU cannot run (", DetectedCpuFeatures().Describe(), ")"));
  }
}

}  // namespace

Int8Isa BestInt8Isa() {
  const CpuFeatures& features = DetectedCpuFeatures();
  if (features.amx_int8) return Int8Isa::kAmxInt8;
  if (features.avx512_vnni && features.avx512bw) return Int8Isa::kAvx512Vnni;
  if (features.avx2) return Int8Isa::kAvx2;
  return Int8Isa::kGeneric;
}

bool Int8IsaAvailable(Int8Isa isa) {
  const CpuFeatures& features = DetectedCpuFeatures();
  switch (isa) {
    case Int8Isa::kGeneric:
      return true;
    case Int8Isa::kAvx2:
      return features.avx2;
    case Int8Isa::kAvx512Vnni:
      return features.avx512_vnni && features.avx512bw;
    case Int8Isa::kAmxInt8:
      return features.amx_int8;
  }
  return false;
}

const char* Int8IsaName(Int8Isa isa) {
  switch (isa) {
    case Int8Isa::kGeneric:
      return "generic";
    case Int8Isa::kAvx2:
      return "AVX2";
    case Int8Isa::kAvx512Vnni:
      return "AVX-512 VNNI";
    case Int8Isa::kAmxInt8:
      return "AMX";
  }
  return "?";
}

const Int8Kernel& Int8KernelFor(Int8Isa isa) {
  switch (isa) {
    case Int8Isa::kAvx2:
      return Avx2Int8Kernel();
    case Int8Isa::kAvx512Vnni:
      return Avx512VnniInt8Kernel();
    case Int8Isa::kAmxInt8:
      return AmxInt8Kernel();
    case Int8Isa::kGeneric:
      break;
  }
  return GenericInt8Kernel();
}

Uint8Quantization ChooseUint8Quantization(float min, float max) {
  if (!std::isfinite(min) || !std::isfinite(max) || min > max) {
    throw Error(Concat("uint8 quantisation: expected a finite range min <= max, got [", min, ", ",
                       max, "]"));
  }
  // LESSON 17 BEGIN: the scale and zero point that map [min, max], widened to hold 0, onto 0..255
  min = std::min(min, 0.0f);
  max = std::max(max, 0.0f);
  if (max == min) return Uint8Quantization{};
  Uint8Quantization quantization;
  quantization.scale = (max - min) / 255.0f;
  // A range too narrow for a normal scale (a subnormal or zero quotient) holds nothing but zero
  // to any precision the int8 layers keep.
  if (!(quantization.scale >= std::numeric_limits<float>::min())) return Uint8Quantization{};
  quantization.zero_point =
      static_cast<int>(std::clamp(std::nearbyint(-min / quantization.scale), 0.0f, 255.0f));
  return quantization;
  // LESSON 17 END
}

void QuantizeToUint8(const float* input, size_t count, const Uint8Quantization& quantization,
                     uint8_t* output) {
  CheckQuantization(quantization);
  QuantizeValues(input, count, quantization, output);
}

std::vector<float> DequantizeWeightsPerChannel(const std::vector<int8_t>& quantized,
                                               const std::vector<float>& scales) {
  std::vector<float> values(quantized.size());
  if (scales.empty()) return values;
  const size_t per_channel = quantized.size() / scales.size();
  for (size_t i = 0; i < values.size(); ++i) values[i] = scales[i / per_channel] * quantized[i];
  return values;
}

void QuantizeWeightsPerChannel(const float* weights, int n, int k, std::vector<int8_t>* quantized,
                               std::vector<float>* scales) {
  if (n <= 0 || k <= 0) {
    throw Error(Concat("weight quantisation: expected positive sizes, got ", n, " x ", k));
  }
  quantized->resize(static_cast<size_t>(n) * k);
  scales->resize(n);
  for (int j = 0; j < n; ++j) {
    const float* channel = weights + static_cast<size_t>(j) * k;
    float largest = 0.0f;
    for (int p = 0; p < k; ++p) {
      if (!std::isfinite(channel[p])) {
        throw Error(Concat("weight quantisation: expected finite weights, got ", channel[p],
                           " in channel ", j));
      }
      largest = std::max(largest, std::fabs(channel[p]));
    }
    // LESSON 17 BEGIN: channel j's symmetric scale (its largest magnitude onto 127) and levels
    const float scale = largest > 0.0f ? largest / 127.0f : 1.0f;
    (*scales)[j] = scale;
    for (int p = 0; p < k; ++p) {
      const float level = std::clamp(std::nearbyint(channel[p] / scale), -127.0f, 127.0f);
      (*quantized)[static_cast<size_t>(j) * k + p] = static_cast<int8_t>(level);
    }
    // LESSON 17 END
  }
}

Int8PackedWeights::Int8PackedWeights(const int8_t* weights, int n, int k, int ldw,
                                     const float* scales, Int8Isa isa)
    : depth_(k), channels_(n), isa_(isa), scales_(scales, scales + std::max(n, 0)) {
  if (n <= 0 || k <= 0 || k > kInt8GemmMaxDepth || ldw < k) {
    throw Error(Concat("int8 weights: expected n > 0, 0 < k <= ", kInt8GemmMaxDepth,
                       " and ldw >= k, got n = ", n, ", k = ", k, ", ldw = ", ldw));
  }
  for (int j = 0; j < n; ++j) {
    if (!IsPositiveFinite(scales[j])) {
      throw Error(Concat("int8 weights: expected positive finite scales, got ", scales[j],
                         " for channel ", j));
    }
  }
  const Int8Kernel& kernel = Int8KernelFor(isa);
  const int groups = kernel.Groups(k);
  const int panels = (n + kernel.panel_columns - 1) / kernel.panel_columns;
  const int element_bytes = kernel.ElementBytes();
  data_.assign(static_cast<size_t>(panels) * groups * kernel.panel_columns * 4, 0);
  sums_.assign(n, 0);
  const size_t panel_bytes = static_cast<size_t>(groups) * kernel.panel_columns * 4;
  for (int panel = 0; panel < panels; ++panel) {
    for (int group = 0; group < groups; ++group) {
      for (int column = 0; column < kernel.panel_columns; ++column) {
        const int j = panel * kernel.panel_columns + column;
        if (j >= n) continue;  // zero padding
        uint8_t* target =
            data_.data() + panel * panel_bytes + kernel.ColumnCellOffset(group, column);
        for (int step = 0; step < kernel.group_depth; ++step) {
          const int p = group * kernel.group_depth + step;
          if (p >= k) continue;
          const int8_t value = weights[static_cast<size_t>(j) * ldw + p];
          if (element_bytes == 1) {
            target[step] = static_cast<uint8_t>(value);
          } else {
            const int16_t wide = value;  // little-endian, as the kernels load it
            std::memcpy(target + 2 * step, &wide, 2);
          }
        }
      }
    }
  }
  for (int j = 0; j < n; ++j) {
    for (int p = 0; p < k; ++p) sums_[j] += weights[static_cast<size_t>(j) * ldw + p];
  }
}

void Int8Gemm(int m, const uint8_t* a, int lda, const Uint8Quantization& a_quantization,
              const Int8PackedWeights& weights, const float* bias, const Activation& activation,
              float* c, int ldc, const ComputeContext& context) {
  CheckGemmArguments(m, lda, ldc, weights);
  CheckQuantization(a_quantization);
  RunBlocks(
      m, a, lda, weights, context,
      [&](int first_row, int rows, int first_column, int end_column, const int32_t* sums, int ld) {
        DequantizeBlock(sums, ld, rows, first_column, end_column, weights.sums().data(),
                        a_quantization.zero_point, a_quantization.scale, weights.scales().data(),
                        bias, activation, c + first_row + static_cast<size_t>(first_column) * ldc,
                        ldc);
      });
}

void Int8GemmRequantized(int m, const uint8_t* a, int lda, const Uint8Quantization& a_quantization,
                         const Int8PackedWeights& weights, const float* bias,
                         const Activation& activation, const Uint8Quantization& c_quantization,
                         uint8_t* c, int ldc, const ComputeContext& context) {
  CheckGemmArguments(m, lda, ldc, weights);
  CheckQuantization(a_quantization);
  CheckQuantization(c_quantization);
  RunBlocks(
      m, a, lda, weights, context,
      [&](int first_row, int rows, int first_column, int end_column, const int32_t* sums, int ld) {
        // A few columns at a time through a float tile on the stack (a block's rows by
        // kTileColumns): the float values exist only on their way to bytes.
        constexpr int kTileColumns = 8;
        float tile[kTileColumns * kMostBlockRows];
        for (int first = first_column; first < end_column; first += kTileColumns) {
          const int end = std::min(end_column, first + kTileColumns);
          DequantizeBlock(sums + static_cast<size_t>(first - first_column) * ld, ld, rows, first,
                          end, weights.sums().data(), a_quantization.zero_point,
                          a_quantization.scale, weights.scales().data(), bias, activation, tile,
                          rows);
          for (int j = first; j < end; ++j) {
            QuantizeValues(tile + static_cast<size_t>(j - first) * rows, rows, c_quantization,
                           c + static_cast<size_t>(j) * ldc + first_row);
          }
        }
      });
}

void Int8GemmSums(int m, const uint8_t* a, int lda, int zero_point,
                  const Int8PackedWeights& weights, int32_t* c, int ldc,
                  const ComputeContext& context) {
  CheckGemmArguments(m, lda, ldc, weights);
  CheckQuantization(Uint8Quantization{1.0f, zero_point});
  RunBlocks(
      m, a, lda, weights, context,
      [&](int first_row, int rows, int first_column, int end_column, const int32_t* sums, int ld) {
        for (int j = first_column; j < end_column; ++j) {
          const int32_t correction = zero_point * weights.sums()[j];
          const int32_t* column = sums + static_cast<size_t>(j - first_column) * ld;
          int32_t* out = c + static_cast<size_t>(j) * ldc + first_row;
          for (int i = 0; i < rows; ++i) out[i] = column[i] - correction;
        }
      });
}

size_t Int8GemmScratchSize(int m, const Int8PackedWeights& weights) {
  const Int8Kernel& kernel = Int8KernelFor(weights.isa());
  const size_t block = ScratchFloats(kernel, std::min(m, kBlockPanels * kernel.panel_rows),
                                     weights.depth(), weights.channels());
  const size_t vector =
      MatrixVectorScratchBytes(kernel, weights.depth(), weights.channels()) / sizeof(float) + 1;
  return std::max(block, vector);
}

void ReferenceInt8GemmSums(int m, int n, int k, const uint8_t* a, int lda, int zero_point,
                           const int8_t* weights, int ldw, int32_t* c, int ldc) {
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      int32_t sum = 0;
      for (int p = 0; p < k; ++p) {
        sum += (a[i + static_cast<size_t>(p) * lda] - zero_point) *
               weights[static_cast<size_t>(j) * ldw + p];
      }
      c[i + static_cast<size_t>(j) * ldc] = sum;
    }
  }
}

void ReferenceInt8Gemm(int m, int n, int k, const uint8_t* a, int lda,
                       const Uint8Quantization& a_quantization, const int8_t* weights, int ldw,
                       const float* scales, const float* bias, const Activation& activation,
                       float* c, int ldc) {
  std::vector<int32_t> sums(static_cast<size_t>(m) * n);
  ReferenceInt8GemmSums(m, n, k, a, lda, a_quantization.zero_point, weights, ldw, sums.data(), m);
  DequantizeBlock(sums.data(), m, m, 0, n, nullptr, 0, a_quantization.scale, scales, bias,
                  activation, c, ldc);
}

}  // namespace lumen
