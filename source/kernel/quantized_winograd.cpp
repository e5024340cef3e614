// Integer Winograd F(2x2, 3x3) (see quantized_winograd.hpp for the algebra and its bounds).
//
// Tiles are numbered down the columns of tiles (t = tx * tiles.rows + ty), as the output's
// column-major pixels are. One sample runs in blocks of whole tile columns (PlanBlocks: about
// 256 KB of V each), one task per block:
//   1. TransformInput for every pair of input channels: V of the block's tiles, written straight
//      into the row panels the micro-kernel reads (16 tiles x one int16 pair of channels), in the
//      thread's own scratch, where it stays in cache for
//   2. MultiplyAndTransformOutput for each group of row panels and output channels: the 16
//      products M_xi = V_xi U_xi into the thread's scratch, then A^T M A per tile, the
//      dequantisation, bias and activation, written into the output planes.
// A small map has fewer blocks than threads: its whole V is then shared, in the caller's buffer,
// and the two phases run one after the other, each spread over the threads (by channel pairs,
// then by row panels times output channels).
#include "kernel/quantized_winograd.hpp"

#include <algorithm>
#include <cstring>

#include "base/thread_pool.hpp"
#include "lumen/error.hpp"
#include "math/int8_gemm_kernels.hpp"

namespace lumen {
namespace {

constexpr int kPositions = 16;  // the 4x4 input tile's positions xi = 4 * i + j
// Row panels (of 16 tiles) per task of phase 2, and column panels (of 6 output channels) per
// pass over them: the task's M (16 x 64 tiles x 48 channels of int32, 192 KB) stays in L2.
constexpr int kBlockPanels = 4;
constexpr int kChunkPanels = 8;
// Groups (channel pairs) per pass of the micro-kernel, as the int8 GEMM slices k: a slice of a
// row panel (16 KB) stays in L1 while it meets the chunk's column panels.
constexpr int kSliceGroups = 256;
// Spare values between positions' V, so their starts are not a power of two apart (which would
// map the transform's 16 streams onto the same L1 sets).
constexpr size_t kSpacerValues = 32;

// The int16-pair kernel for `isa`.
const Int8Kernel& PairKernel(Int8Isa isa) {
  const Int8Kernel& kernel = Int8KernelFor(isa);
  if (kernel.group_depth != 2 || kernel.panel_rows != 16) {
    throw Error(Concat("quantised Winograd: the ", Int8IsaName(isa),
                       " kernel does not multiply int16 pairs in panels of 16 rows"));
  }
  return kernel;
}

// B^T d down the padded columns of one parity, for `count` tiles: tile n's rows are
// d[2n .. 2n + 3]. (Restrict-qualified, so that the compiler vectorises without proving the
// arrays apart.)
void TransformDown(const int16_t* __restrict d, int count, int16_t* __restrict s0,
                   int16_t* __restrict s1, int16_t* __restrict s2, int16_t* __restrict s3) {
  for (int n = 0; n < count; ++n) {
    s0[n] = static_cast<int16_t>(d[2 * n] - d[2 * n + 2]);
    s1[n] = static_cast<int16_t>(d[2 * n + 1] + d[2 * n + 2]);
    s2[n] = static_cast<int16_t>(d[2 * n + 2] - d[2 * n + 1]);
    s3[n] = static_cast<int16_t>(d[2 * n + 1] - d[2 * n + 3]);
  }
}

// B^T applied across one row of B^T d, for `count` tiles: tile n's four columns are even[n],
// odd[n], even[n + stride], odd[n + stride]; v0..v3 are the row's four positions.
void TransformAcross(const int16_t* __restrict even, const int16_t* __restrict odd, int stride,
                     int count, int16_t* __restrict v0, int16_t* __restrict v1,
                     int16_t* __restrict v2, int16_t* __restrict v3) {
  for (int n = 0; n < count; ++n) {
    const int16_t c0 = even[n], c1 = odd[n], c2 = even[n + stride], c3 = odd[n + stride];
    v0[n] = static_cast<int16_t>(c0 - c2);
    v1[n] = static_cast<int16_t>(c1 + c2);
    v2[n] = static_cast<int16_t>(c2 - c1);
    v3[n] = static_cast<int16_t>(c1 - c3);
  }
}

// (2G) g for one column of a 3x3 kernel: g at g[0], g[step], g[2 * step] -> 4 values.
void KernelColumn(const int32_t* g, int step, int32_t* out, int out_step) {
  out[0] = 2 * g[0];
  out[out_step] = g[0] + g[step] + g[2 * step];
  out[2 * out_step] = g[0] - g[step] + g[2 * step];
  out[3 * out_step] = 2 * g[2 * step];
}

}  // namespace

bool QuantizedWinograd::Applies(const Window2d& window, int in_channels, int groups) {
  return window.kernel_h == 3 && window.kernel_w == 3 && window.stride_h == 1 &&
         window.stride_w == 1 && window.dilation_h == 1 && window.dilation_w == 1 && groups == 1 &&
         in_channels >= 1 && in_channels <= kQuantizedWinogradMostChannels;
}

QuantizedWinograd::QuantizedWinograd(const int8_t* weights, int out_channels, int in_channels,
                                     const float* scales, Int8Isa isa)
    : in_channels_(in_channels), out_channels_(out_channels), isa_(isa) {
  Window2d window;
  window.kernel_h = window.kernel_w = 3;
  if (out_channels < 1 || !Applies(window, in_channels, 1)) {
    throw Error(Concat("quantised Winograd: expected 1 to ", kQuantizedWinogradMostChannels,
                       " input channels and at least one output channel, got ", in_channels,
                       " and ", out_channels));
  }
  const Int8Kernel& kernel = PairKernel(isa);
  groups_ = kernel.Groups(in_channels);
  scales_.assign(scales, scales + out_channels);
  const int column_panels = (out_channels + kernel.panel_columns - 1) / kernel.panel_columns;
  const size_t panel_bytes = static_cast<size_t>(groups_) * kernel.panel_columns * 4;
  weights_.assign(static_cast<size_t>(kPositions) * column_panels * panel_bytes, 0);
  for (int k = 0; k < out_channels; ++k) {
    for (int c = 0; c < in_channels; ++c) {
      const int8_t* source = weights + (static_cast<size_t>(k) * in_channels + c) * 9;
      int32_t g[9];  // row-major: g[ky * 3 + kx]
      for (int i = 0; i < 9; ++i) g[i] = source[i];
      int32_t columns[4 * 3];  // (2G) g: 4 rows x 3 columns
      for (int kx = 0; kx < 3; ++kx) KernelColumn(g + kx, 3, columns + kx, 3);
      int32_t tile[kPositions];  // (2G) g (2G)^T: 4 x 4, row-major, xi = 4 i + j
      for (int i = 0; i < 4; ++i) KernelColumn(columns + 3 * i, 1, tile + 4 * i, 1);
      const int panel = k / kernel.panel_columns;
      const int column = k % kernel.panel_columns;
      for (int xi = 0; xi < kPositions; ++xi) {
        const int16_t value = static_cast<int16_t>(tile[xi]);  // |value| <= 9 * 128
        uint8_t* target =
            weights_.data() + (static_cast<size_t>(xi) * column_panels + panel) * panel_bytes +
            (static_cast<size_t>(c / 2) * kernel.panel_columns + column) * 4 + (c % 2) * 2;
        std::memcpy(target, &value, 2);
      }
    }
  }
}

QuantizedWinograd::TileGrid QuantizedWinograd::Tiles(const PlanePair& shape) {
  const int rows = (shape.output_h + 1) / 2;
  const int columns = (shape.output_w + 1) / 2;
  return {rows, columns, rows * columns};
}

size_t QuantizedWinograd::PositionValues(int tile_count) const {
  const Int8Kernel& kernel = PairKernel(isa_);
  const size_t row_panels =
      (static_cast<size_t>(tile_count) + kernel.panel_rows - 1) / kernel.panel_rows;
  return row_panels * kernel.PanelBytes(in_channels_) / 2 + kSpacerValues;
}

// Where TransformInput's intermediate values live for a chunk of kChunkTileColumns tile columns,
// R = tiles.rows + 1 values per tile column (one spare: see TransformInput): the padded input
// columns split by parity (even x, odd x; 2R rows each, plus a guard of 4), the column transforms
// (4 rows of B^T d, per parity), and V of both channels of the pair.
struct QuantizedWinograd::InputBuffers {
  static constexpr int kChunkTileColumns = 8;
  static constexpr int kGuard = 4;  // past the last padded column: read by the spare tile only
  // The four arrays' sizes, in values.
  struct Sizes {
    explicit Sizes(int tile_rows) : stride(tile_rows + 1) {}
    size_t Padded() const { return (kChunkTileColumns + 1) * 2 * static_cast<size_t>(stride); }
    size_t Columns() const { return 8 * (kChunkTileColumns + 1) * static_cast<size_t>(stride); }
    size_t Values() const { return 2 * 16 * kChunkTileColumns * static_cast<size_t>(stride); }
    size_t Total() const { return 2 * (Padded() + kGuard) + Columns() + Values(); }
    int stride;  // R
  };
  InputBuffers(int tile_rows, int16_t* memory) : stride(tile_rows + 1) {
    const Sizes sizes(tile_rows);
    padded_even = memory;
    padded_odd = padded_even + sizes.Padded() + kGuard;
    transformed_columns = padded_odd + sizes.Padded() + kGuard;
    values = transformed_columns + sizes.Columns();
    // The guards stay zero, so the spare tile's values are defined (and never used).
    std::fill(padded_even + sizes.Padded(), padded_odd, int16_t{0});
    std::fill(padded_odd + sizes.Padded(), transformed_columns, int16_t{0});
  }
  int stride;  // R
  int16_t* padded_even;
  int16_t* padded_odd;
  int16_t* transformed_columns;  // [4 rows i][2 parities][(chunk + 1) * R]
  int16_t* values;               // [2 channels][16 positions][chunk * R]
};

// The tile rows of one tile column, R = tiles.rows + 1 apart: tile (tx, ty) of the chunk is
// n = (tx - first tx) * R + ty. With the padded input split into even and odd columns (each 2R
// rows), tile n's rows are 2n .. 2n + 3 of its columns' arrays and its four input columns are
// even[n], odd[n], even[n + R], odd[n + R]: every step below is one long loop over n with fixed
// offsets, which the compiler vectorises (16 tiles per AVX2 instruction). The spare tile at
// ty = tiles.rows of every column is computed and never stored.
void QuantizedWinograd::TransformInput(const PlanePair& shape, const Window2d& window,
                                       const TileGrid& tiles, const uint8_t* input, int zero_point,
                                       int group, const TileBlock& block,
                                       const ComputeContext& context) const {
  const Int8Kernel& kernel = PairKernel(isa_);
  const size_t panel_values = kernel.PanelBytes(in_channels_) / 2;
  const InputBuffers buffers(tiles.rows,
                             reinterpret_cast<int16_t*>(context.Scratch(
                                 ScratchSlot::kFirst, ScratchFloats(ScratchSlot::kFirst, shape))));
  const int stride = buffers.stride;
  for (int first_tx = block.first_column; first_tx < block.end_column;
       first_tx += InputBuffers::kChunkTileColumns) {
    const int chunk = std::min(InputBuffers::kChunkTileColumns, block.end_column - first_tx);
    const int chunk_tiles = chunk * stride;
    for (int half = 0; half < 2; ++half) {
      int16_t* values = buffers.values + static_cast<size_t>(half) * 16 * chunk_tiles;
      const int channel = 2 * group + half;
      if (channel >= in_channels_) {
        std::fill(values, values + 16 * chunk_tiles, int16_t{0});
        continue;
      }
      const uint8_t* plane = input + static_cast<size_t>(channel) * shape.input_h * shape.input_w;
      // The padded columns x = 2 first_tx + column - pad_left, rows y = r - pad_top, r < 2R.
      for (int column = 0; column < 2 * chunk + 2; ++column) {
        int16_t* target = (column % 2 == 0 ? buffers.padded_even : buffers.padded_odd) +
                          static_cast<size_t>(column / 2) * 2 * stride;
        std::fill(target, target + 2 * stride, int16_t{0});
        const int x = 2 * first_tx + column - window.pad_left;
        if (x < 0 || x >= shape.input_w) continue;
        const uint8_t* source = plane + static_cast<size_t>(x) * shape.input_h;
        const int end = std::min(2 * stride, shape.input_h + window.pad_top);
        for (int r = window.pad_top; r < end; ++r) {
          target[r] = static_cast<int16_t>(source[r - window.pad_top] - zero_point);
        }
      }
      // Down the columns: B^T d for each tile of each padded column, by parity. The spare tile of
      // the last column reads two values past the chunk's columns: zeros, as the guards are.
      const int column_tiles = (chunk + 1) * stride;
      for (int16_t* d : {buffers.padded_even, buffers.padded_odd}) {
        std::fill(d + 2 * column_tiles, d + 2 * column_tiles + 2, int16_t{0});
      }
      for (int parity = 0; parity < 2; ++parity) {
        const int16_t* d = parity == 0 ? buffers.padded_even : buffers.padded_odd;
        int16_t* s0 = buffers.transformed_columns + static_cast<size_t>(parity) * column_tiles;
        int16_t* s1 = s0 + 2 * column_tiles;
        int16_t* s2 = s1 + 2 * column_tiles;
        int16_t* s3 = s2 + 2 * column_tiles;
        TransformDown(d, column_tiles, s0, s1, s2, s3);
      }
      // Across: V[4 i + j] = B^T applied to row i of the tile's four columns.
      for (int i = 0; i < 4; ++i) {
        const int16_t* even =
            buffers.transformed_columns + static_cast<size_t>(2 * i) * column_tiles;
        const int16_t* odd = even + column_tiles;
        int16_t* v = values + static_cast<size_t>(4 * i) * chunk_tiles;
        TransformAcross(even, odd, stride, chunk_tiles, v, v + chunk_tiles, v + 2 * chunk_tiles,
                        v + 3 * chunk_tiles);
      }
    }
    // Into the panels: tile t's pair of channels is row t % 16 of panel t / 16, in group
    // `group`; the tiles of one panel are consecutive pairs there, so each run of a tile column
    // within a panel is one interleaving loop.
    for (int local_tx = 0; local_tx < chunk; ++local_tx) {
      const int first_tile = (first_tx + local_tx - block.first_column) * tiles.rows;
      for (int done = 0; done < tiles.rows;) {
        const int t = first_tile + done;
        const int run = std::min(tiles.rows - done, kernel.panel_rows - t % kernel.panel_rows);
        int16_t* target = block.values + (t / kernel.panel_rows) * panel_values +
                          static_cast<size_t>(group) * kernel.panel_rows * 2 +
                          (t % kernel.panel_rows) * 2;
        const size_t offset = static_cast<size_t>(local_tx) * stride + done;
        for (int xi = 0; xi < kPositions; ++xi) {
          const int16_t* first = buffers.values + static_cast<size_t>(xi) * chunk_tiles + offset;
          const int16_t* second = first + static_cast<size_t>(16) * chunk_tiles;
          int16_t* pairs = target + xi * block.position_values;
          for (int i = 0; i < run; ++i) {
            pairs[2 * i] = first[i];
            pairs[2 * i + 1] = second[i];
          }
        }
        done += run;
      }
    }
  }
}

void QuantizedWinograd::MultiplyAndTransformOutput(
    const PlanePair& shape, const TileGrid& tiles, const TileBlock& block, int first_panel,
    int end_panel, int first_column_panel, int end_column_panel, float a_scale, const float* bias,
    const Activation& activation, float* output, const ComputeContext& context) const {
  const Int8Kernel& kernel = PairKernel(isa_);
  const size_t a_panel_values = kernel.PanelBytes(in_channels_) / 2;
  const int column_panels = (out_channels_ + kernel.panel_columns - 1) / kernel.panel_columns;
  const size_t b_panel_bytes = static_cast<size_t>(groups_) * kernel.panel_columns * 4;
  const int ld = (end_panel - first_panel) * kernel.panel_rows;
  const int chunk_columns = (end_column_panel - first_column_panel) * kernel.panel_columns;
  const size_t position_sums = static_cast<size_t>(ld) * chunk_columns;
  auto* sums = reinterpret_cast<int32_t*>(
      context.Scratch(ScratchSlot::kGemmPacking, ScratchFloats(ScratchSlot::kGemmPacking, shape)));
  for (int first_group = 0; first_group < groups_; first_group += kSliceGroups) {
    const int slice = std::min(kSliceGroups, groups_ - first_group);
    for (int xi = 0; xi < kPositions; ++xi) {
      for (int panel = first_panel; panel < end_panel; ++panel) {
        const auto* a = reinterpret_cast<const uint8_t*>(
            block.values + xi * block.position_values + panel * a_panel_values +
            static_cast<size_t>(first_group) * kernel.panel_rows * 2);
        for (int column_panel = first_column_panel; column_panel < end_column_panel;
             ++column_panel) {
          const uint8_t* b =
              weights_.data() +
              (static_cast<size_t>(xi) * column_panels + column_panel) * b_panel_bytes +
              static_cast<size_t>(first_group) * kernel.panel_columns * 4;
          int32_t* tile =
              sums + xi * position_sums +
              static_cast<size_t>(column_panel - first_column_panel) * kernel.panel_columns * ld +
              (panel - first_panel) * kernel.panel_rows;
          kernel.micro_kernel(slice, a, b, tile, ld, first_group > 0);
        }
      }
    }
  }
  // Y = A^T M A per tile, A^T = [[1, 1, 1, 0], [0, 1, -1, -1]]; Y is 4 times the exact sum. In
  // uint32, whose wrap-around is defined: the partial sums may pass 2^31, Y itself does not.
  const int first_tile = block.first_tile + first_panel * kernel.panel_rows;
  const int block_tiles = std::min(ld, block.count - first_panel * kernel.panel_rows);
  const int first_channel = first_column_panel * kernel.panel_columns;
  const int end_channel = std::min(out_channels_, first_channel + chunk_columns);
  constexpr int kMostTiles = kBlockPanels * 16;
  float y[4][kMostTiles];  // per tile: Y[0][0], Y[0][1], Y[1][0], Y[1][1], dequantised
  WithActivation(activation, [&](auto function) {
    for (int channel = first_channel; channel < end_channel; ++channel) {
      const float scale = a_scale * scales_[channel];
      const float offset = bias == nullptr ? 0.0f : bias[channel];
      const int32_t* m = sums + static_cast<size_t>(channel - first_channel) * ld;
      const int32_t* p[kPositions];  // M_xi's sums of this channel, one per tile
      for (int xi = 0; xi < kPositions; ++xi) p[xi] = m + xi * position_sums;
      // One loop over the tiles, with the transform spelled out, so that it vectorises.
      for (int i = 0; i < block_tiles; ++i) {
        const auto at = [&](int xi) { return static_cast<uint32_t>(p[xi][i]); };
        // A^T M: row 0 = M_0 + M_1 + M_2, row 1 = M_1 - M_2 - M_3 (rows i of the 4x4 M).
        const uint32_t a00 = at(0) + at(4) + at(8), a01 = at(1) + at(5) + at(9);
        const uint32_t a02 = at(2) + at(6) + at(10), a03 = at(3) + at(7) + at(11);
        const uint32_t a10 = at(4) - at(8) - at(12), a11 = at(5) - at(9) - at(13);
        const uint32_t a12 = at(6) - at(10) - at(14), a13 = at(7) - at(11) - at(15);
        const int32_t y00 = static_cast<int32_t>(a00 + a01 + a02);
        const int32_t y01 = static_cast<int32_t>(a01 - a02 - a03);
        const int32_t y10 = static_cast<int32_t>(a10 + a11 + a12);
        const int32_t y11 = static_cast<int32_t>(a11 - a12 - a13);
        // As the int8 GEMM's epilogue (DequantizeBlock) computes it, so that both round alike.
        y[0][i] = function(static_cast<float>(y00 / 4) * scale + offset);
        y[1][i] = function(static_cast<float>(y01 / 4) * scale + offset);
        y[2][i] = function(static_cast<float>(y10 / 4) * scale + offset);
        y[3][i] = function(static_cast<float>(y11 / 4) * scale + offset);
      }
      // Pixel (2 ty + r, 2 tx + c) of the column-major plane takes y[2 r + c]: for the tiles of
      // one tile column, output columns 2 tx and 2 tx + 1 are y[c] and y[2 + c] interleaved.
      float* plane = output + static_cast<size_t>(channel) * shape.output_h * shape.output_w;
      for (int i = 0; i < block_tiles;) {
        const int t = first_tile + i;
        const int tx = t / tiles.rows;
        const int first_ty = t % tiles.rows;
        const int run = std::min(block_tiles - i, tiles.rows - first_ty);
        // Whole tiles, then the last row of an odd-height plane.
        const int whole = std::min(run, shape.output_h / 2 - first_ty);
        for (int c = 0; c < 2 && 2 * tx + c < shape.output_w; ++c) {
          float* column = plane + static_cast<size_t>(2 * tx + c) * shape.output_h + 2 * first_ty;
          const float* top = y[c] + i;
          const float* bottom = y[2 + c] + i;
          for (int k = 0; k < whole; ++k) {
            column[2 * k] = top[k];
            column[2 * k + 1] = bottom[k];
          }
          if (whole < run) column[2 * whole] = top[whole];
        }
        i += run;
      }
    }
  });
}

QuantizedWinograd::BlockPlan QuantizedWinograd::PlanBlocks(const PlanePair& shape) const {
  const TileGrid tiles = Tiles(shape);
  // About 256 KB of V per block (16 positions x tiles x channel pairs x 4 bytes), in whole tile
  // columns, at least one.
  const int budget_tiles = std::max(16, 4096 / groups_);
  const int columns =
      std::clamp(budget_tiles / std::max(tiles.rows, 1), 1, std::max(tiles.columns, 1));
  BlockPlan plan;
  plan.block_columns = columns;
  plan.blocks = (tiles.columns + columns - 1) / columns;
  return plan;
}

size_t QuantizedWinograd::BlockPositionValues(const PlanePair& shape) const {
  return PositionValues(PlanBlocks(shape).block_columns * Tiles(shape).rows);
}

size_t QuantizedWinograd::TransformedInputValues(const PlanePair& shape, int threads) const {
  if (PlanBlocks(shape).blocks >= threads) return 0;  // private blocks only: no shared V
  return kPositions * PositionValues(Tiles(shape).count);
}

size_t QuantizedWinograd::ScratchFloats(ScratchSlot slot, const PlanePair& shape) const {
  const Int8Kernel& kernel = PairKernel(isa_);
  switch (slot) {
    case ScratchSlot::kGemmPacking:  // the products M of a task
      return static_cast<size_t>(kPositions) * kBlockPanels * kernel.panel_rows * kChunkPanels *
             kernel.panel_columns;
    case ScratchSlot::kFirst:  // the input transform's buffers
      return (InputBuffers::Sizes(Tiles(shape).rows).Total() + 1) / 2;
    case ScratchSlot::kSecond:  // a private block's V
      return (kPositions * BlockPositionValues(shape) + 1) / 2;
    default:
      return 0;
  }
}

void QuantizedWinograd::Run(const PlanePair& shape, const Window2d& window, const uint8_t* input,
                            const Uint8Quantization& quantization, const float* bias,
                            const Activation& activation, int16_t* shared_values, float* output,
                            const ComputeContext& context) const {
  if (!Applies(window, in_channels_, 1)) {
    throw Error("quantised Winograd: expected a 3x3 window of stride 1 and dilation 1");
  }
  const Int8Kernel& kernel = PairKernel(isa_);
  if (!Int8IsaAvailable(isa_)) {
    throw Error(Concat("quantised Winograd: weights packed for ", Int8IsaName(isa_),
                       ", which this CPU cannot run"));
  }
  const TileGrid tiles = Tiles(shape);
  if (tiles.count == 0) return;
  const int pairs = (in_channels_ + 1) / 2;
  const int column_panels = (out_channels_ + kernel.panel_columns - 1) / kernel.panel_columns;
  const int chunks = (column_panels + kChunkPanels - 1) / kChunkPanels;
  const BlockPlan plan = PlanBlocks(shape);
  if (shared_values == nullptr || plan.blocks >= context.threads()) {
    // Private blocks: each task transforms, multiplies and transforms back a block of whole tile
    // columns, its V in the thread's own scratch (L2-sized), so V never leaves the cache.
    ParallelFor(
        context.pool, plan.blocks,
        [&](std::ptrdiff_t index) {
          TileBlock block;
          block.first_column = static_cast<int>(index) * plan.block_columns;
          block.end_column = std::min(tiles.columns, block.first_column + plan.block_columns);
          block.first_tile = block.first_column * tiles.rows;
          block.count = (block.end_column - block.first_column) * tiles.rows;
          block.position_values = BlockPositionValues(shape);
          block.values = reinterpret_cast<int16_t*>(
              context.Scratch(ScratchSlot::kSecond, ScratchFloats(ScratchSlot::kSecond, shape)));
          ZeroPaddingGroups(block, pairs);
          for (int group = 0; group < pairs; ++group) {
            TransformInput(shape, window, tiles, input, quantization.zero_point, group, block,
                           context);
          }
          const int panels = (block.count + kernel.panel_rows - 1) / kernel.panel_rows;
          for (int first = 0; first < panels; first += kBlockPanels) {
            for (int chunk = 0; chunk < chunks; ++chunk) {
              MultiplyAndTransformOutput(
                  shape, tiles, block, first, std::min(panels, first + kBlockPanels),
                  chunk * kChunkPanels, std::min(column_panels, (chunk + 1) * kChunkPanels),
                  quantization.scale, bias, activation, output, context);
            }
          }
        },
        Schedule::kDynamic);
    return;
  }
  // Fewer blocks than threads (small maps): one V for every tile, shared, in two phases.
  TileBlock whole;
  whole.first_column = 0;
  whole.end_column = tiles.columns;
  whole.first_tile = 0;
  whole.count = tiles.count;
  whole.position_values = PositionValues(tiles.count);
  whole.values = shared_values;
  ParallelFor(context.pool, pairs, [&](std::ptrdiff_t group) {
    TransformInput(shape, window, tiles, input, quantization.zero_point, static_cast<int>(group),
                   whole, context);
  });
  const int row_panels = (tiles.count + kernel.panel_rows - 1) / kernel.panel_rows;
  const int row_blocks = (row_panels + kBlockPanels - 1) / kBlockPanels;
  ParallelFor(
      context.pool, int64_t{row_blocks} * chunks,
      [&](std::ptrdiff_t task) {
        const int block = static_cast<int>(task / chunks);
        const int chunk = static_cast<int>(task % chunks);
        MultiplyAndTransformOutput(shape, tiles, whole, block * kBlockPanels,
                                   std::min(row_panels, (block + 1) * kBlockPanels),
                                   chunk * kChunkPanels,
                                   std::min(column_panels, (chunk + 1) * kChunkPanels),
                                   quantization.scale, bias, activation, output, context);
      },
      Schedule::kDynamic);
}

void QuantizedWinograd::ZeroPaddingGroups(const TileBlock& block, int pairs) const {
  // The groups past the channel pairs (the kernel pads k to a multiple of 4): zero in every panel
  // of every position, since the scratch holds whatever the last user left.
  const Int8Kernel& kernel = PairKernel(isa_);
  if (pairs == groups_) return;
  const size_t panel_values = kernel.PanelBytes(in_channels_) / 2;
  const int panels = (block.count + kernel.panel_rows - 1) / kernel.panel_rows;
  for (int xi = 0; xi < kPositions; ++xi) {
    for (int panel = 0; panel < panels; ++panel) {
      int16_t* first = block.values + xi * block.position_values + panel * panel_values +
                       static_cast<size_t>(pairs) * kernel.panel_rows * 2;
      std::fill(first, first + static_cast<size_t>(groups_ - pairs) * kernel.panel_rows * 2,
                int16_t{0});
    }
  }
}

}  // namespace lumen
