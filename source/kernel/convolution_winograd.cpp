// Winograd F(4x4, 3x3) and F(2x2, 3x3) for 3x3 stride-1 convolutions (Lavin and Gray, 2015).
//
// A 3x3 convolution producing a 4x4 output tile reads a 6x6 input tile. Directly that costs
// 16 * 9 = 144 multiplications per (input channel, output channel) pair; in the Winograd domain it
// is 36 element-wise products:
//
//     Y = A^T [ (G g G^T) * (B^T d B) ] A        g: 3x3 kernel, d: 6x6 input tile, Y: 4x4 output
//
// Summed over input channels, the element-wise products become 36 independent matrix products:
// for each of the 36 positions xi of the 6x6 tile, M_xi (tiles x C_out) = V_xi (tiles x C_in) *
// U_xi (C_in x C_out). So the algorithm is: transform the weights once (U), transform the input
// (V), run 36 GEMMs, transform back (A^T M A), add the bias and apply the activation.
//
// F(2x2, 3x3) is the same with 4x4 input tiles, 2x2 output tiles and 16 GEMMs. The class below is
// written once for both; only the three small matrices differ.
#include <omp.h>

#include <algorithm>

#include "lumen/base/error.hpp"
#include "lumen/base/parallel.hpp"
#include "lumen/base/scratch.hpp"
#include "lumen/kernel/convolution_algorithm.hpp"
#include "lumen/math/packed_gemm.hpp"

namespace lumen {
namespace {

// The three 1-D transforms of F(m x m, 3 x 3); the 2-D ones apply them down columns, then along
// rows. Each reads its input i at `[i * step]` and writes its output i at `out[i * out_step]`: the
// callers use the strides to walk rows or columns of their buffers, and inside their loops over
// tiles the compiler inlines these and vectorises across tiles.
template <int kTileSize>
struct WinogradMatrices;

// F(4x4, 3x3): 6x6 input tiles, 36 products for 16 outputs (a quarter of the direct 144).
template <>
struct WinogradMatrices<4> {
  static constexpr int kTile = 4;
  static constexpr int kInput = 6;
  // g (3) -> G g (6)
  static void Kernel(const float* g, int step, float* out, int out_step) {
    out[0 * out_step] = g[0] / 4.0f;
    out[1 * out_step] = -(g[0] + g[step] + g[2 * step]) / 6.0f;
    out[2 * out_step] = -(g[0] - g[step] + g[2 * step]) / 6.0f;
    out[3 * out_step] = g[0] / 24.0f + g[step] / 12.0f + g[2 * step] / 6.0f;
    out[4 * out_step] = g[0] / 24.0f - g[step] / 12.0f + g[2 * step] / 6.0f;
    out[5 * out_step] = g[2 * step];
  }
  // d (6) -> B^T d (6)
  static void Input(const float* d, int step, float* out, int out_step) {
    const float d0 = d[0], d1 = d[step], d2 = d[2 * step];
    const float d3 = d[3 * step], d4 = d[4 * step], d5 = d[5 * step];
    out[0 * out_step] = 4.0f * d0 - 5.0f * d2 + d4;
    out[1 * out_step] = -4.0f * d1 - 4.0f * d2 + d3 + d4;
    out[2 * out_step] = 4.0f * d1 - 4.0f * d2 - d3 + d4;
    out[3 * out_step] = -2.0f * d1 - d2 + 2.0f * d3 + d4;
    out[4 * out_step] = 2.0f * d1 - d2 - 2.0f * d3 + d4;
    out[5 * out_step] = 4.0f * d1 - 5.0f * d3 + d5;
  }
  // m (6) -> A^T m (4)
  static void Output(const float* m, int step, float* out, int out_step) {
    const float m0 = m[0], m1 = m[step], m2 = m[2 * step];
    const float m3 = m[3 * step], m4 = m[4 * step], m5 = m[5 * step];
    out[0 * out_step] = m0 + m1 + m2 + m3 + m4;
    out[1 * out_step] = m1 - m2 + 2.0f * (m3 - m4);
    out[2 * out_step] = m1 + m2 + 4.0f * (m3 + m4);
    out[3 * out_step] = m1 - m2 + 8.0f * (m3 - m4) + m5;
  }
};

// F(2x2, 3x3): 4x4 input tiles, 16 products for 4 outputs (direct: 36). It saves less than
// F(4x4) but wastes less on small maps: a 14x14 map is 49 tiles instead of 16, and its transformed
// weights are 16/9 of the kernel's size instead of 36/9, which matters when they come from DRAM.
template <>
struct WinogradMatrices<2> {
  static constexpr int kTile = 2;
  static constexpr int kInput = 4;
  // g (3) -> G g (4)
  static void Kernel(const float* g, int step, float* out, int out_step) {
    out[0 * out_step] = g[0];
    out[1 * out_step] = (g[0] + g[step] + g[2 * step]) / 2.0f;
    out[2 * out_step] = (g[0] - g[step] + g[2 * step]) / 2.0f;
    out[3 * out_step] = g[2 * step];
  }
  // d (4) -> B^T d (4)
  static void Input(const float* d, int step, float* out, int out_step) {
    const float d0 = d[0], d1 = d[step], d2 = d[2 * step], d3 = d[3 * step];
    out[0 * out_step] = d0 - d2;
    out[1 * out_step] = d1 + d2;
    out[2 * out_step] = d2 - d1;
    out[3 * out_step] = d1 - d3;
  }
  // m (4) -> A^T m (2)
  static void Output(const float* m, int step, float* out, int out_step) {
    const float m0 = m[0], m1 = m[step], m2 = m[2 * step], m3 = m[3 * step];
    out[0 * out_step] = m0 + m1 + m2;
    out[1 * out_step] = m1 - m2 - m3;
  }
};

// F(m x m, 3 x 3) with m = kTileSize: the matrices above, the blocking below.
template <int kTileSize>
class WinogradConvolution : public ConvolutionAlgorithm {
  using Matrices = WinogradMatrices<kTileSize>;
  static constexpr int kTile = Matrices::kTile;        // output tile size
  static constexpr int kInputTile = Matrices::kInput;  // kTile + 3 - 1
  static constexpr int kPositions = kInputTile * kInputTile;

 public:
  explicit WinogradConvolution(const ConvolutionSpec& spec)
      : ConvolutionAlgorithm(spec),
        tiles_h_((spec.output_h + kTile - 1) / kTile),
        tiles_w_((spec.output_w + kTile - 1) / kTile),
        tiles_(tiles_h_ * tiles_w_) {
    // U_xi[c, k] = (G g_kc G^T)[xi]: per position a column-major C_in x C_out matrix, packed.
    const int in = spec.in_channels;
    const int out = spec.out_channels;
    std::vector<float> transformed(static_cast<size_t>(kPositions) * in * out);
    for (int k = 0; k < out; ++k) {
      for (int c = 0; c < in; ++c) {
        const float* g = spec.weights.data() + (static_cast<size_t>(k) * in + c) * 9;
        float columns[kInputTile * 3];  // G g: kInputTile rows x 3 columns, row-major
        for (int j = 0; j < 3; ++j) Matrices::Kernel(g + j, 3, columns + j, 3);
        float tile[kPositions];  // (G g) G^T: kInputTile x kInputTile, row-major
        for (int i = 0; i < kInputTile; ++i) {
          Matrices::Kernel(columns + i * 3, 1, tile + i * kInputTile, 1);
        }
        for (int xi = 0; xi < kPositions; ++xi) {
          transformed[(static_cast<size_t>(xi) * out + k) * in + c] = tile[xi];
        }
      }
    }
    for (int xi = 0; xi < kPositions; ++xi) {
      transformed_weights_.emplace_back(transformed.data() + static_cast<size_t>(xi) * in * out, in,
                                        out, in);
    }
    spec_.weights.clear();
    // Two ways to cut the tiles into blocks (see Run): private blocks of about 1 MB of V and M
    // (L2-sized, at least one full panel of tiles), or shared blocks of about 4 MB.
    const int tile_floats = kPositions * (in + out);
    private_tiles_ = std::max(kPanelRows, 262144 / tile_floats);
    const int shared_tiles = std::max(kPanelRows, 1048576 / tile_floats / kPanelRows * kPanelRows);
    shared_ = MakeBuffers(std::min(shared_tiles, tiles_));
    transformed_input_.resize(kPositions * shared_.input_step);
    products_.resize(kPositions * shared_.product_step);
    shared_.input = transformed_input_.data();
    shared_.products = products_.data();
  }

  const char* name() const override { return kTile == 4 ? "winograd" : "winograd-2x2"; }

  // Tiles are numbered down the columns of tiles (t = tx * tiles_h + ty), like the output's
  // column-major pixels, and processed in blocks of consecutive tiles: transform the block's input
  // tiles (V), one GEMM per position xi (M = V U), transform back. When there are enough tiles,
  // each thread takes whole blocks with private V and M that stay in its own cache; otherwise
  // (small feature maps) all threads share each block, phase by phase.
  void Run(const Tensor& input, Tensor* output) override {
    const int threads = omp_get_max_threads();
    if (tiles_ >= threads * private_tiles_ / 2) {
      // As many blocks as the budget needs, rounded up to a multiple of the threads, with the
      // tiles spread evenly, so that every thread gets the same share.
      int blocks = (tiles_ + private_tiles_ - 1) / private_tiles_;
      blocks = (blocks + threads - 1) / threads * threads;
      const int block_tiles = (tiles_ + blocks - 1) / blocks;
      blocks = (tiles_ + block_tiles - 1) / block_tiles;
      ParallelFor(blocks, [&](int block) {
        Buffers buffers = MakeBuffers(block_tiles);
        buffers.input = ThreadScratch(ScratchSlot::kSecond, kPositions * buffers.input_step);
        buffers.products = ThreadScratch(ScratchSlot::kThird, kPositions * buffers.product_step);
        const int first_tile = block * block_tiles;
        const int tiles = std::min(block_tiles, tiles_ - first_tile);
        for (int c = 0; c < spec_.in_channels; ++c) {
          TransformInput(input, c, first_tile, tiles, buffers);
        }
        for (int xi = 0; xi < kPositions; ++xi) Multiply(xi, tiles, buffers, 0, -1);
        for (int k = 0; k < spec_.out_channels; ++k) {
          TransformOutput(k, first_tile, tiles, buffers, output);
        }
      });
      return;
    }
    const int panels = transformed_weights_[0].panels();
    const TaskGrid grid = PlanTasks(kPositions, panels);
    for (int first_tile = 0; first_tile < tiles_; first_tile += shared_.block_tiles) {
      const int tiles = std::min(shared_.block_tiles, tiles_ - first_tile);
      ParallelFor(spec_.in_channels,
                  [&](int c) { TransformInput(input, c, first_tile, tiles, shared_); });
      ParallelFor(
          grid.tasks(),
          [&](int task) {
            const int first_panel = task % grid.panel_groups * grid.panels_per_group;
            Multiply(task / grid.panel_groups, tiles, shared_, first_panel,
                     std::min(panels, first_panel + grid.panels_per_group));
          },
          Schedule::kDynamic);
      ParallelFor(spec_.out_channels,
                  [&](int k) { TransformOutput(k, first_tile, tiles, shared_, output); });
    }
  }

 private:
  // Where one block's V and M live: kPositions matrices each, `*_step` floats apart.
  struct Buffers {
    int block_tiles = 0;      // tiles per block: the rows of V and M
    size_t input_step = 0;    // V_xi: packed block_tiles x C_in
    size_t product_step = 0;  // M_xi: column-major block_tiles x C_out
    float* input = nullptr;
    float* products = nullptr;
  };

  // The part of one tile column tx that a block [first_tile, first_tile + tiles) covers.
  struct ColumnSpan {
    int begin, end;  // tile rows ty in [begin, end)
    int offset;      // index in the block of tile (tx, begin)
  };
  ColumnSpan Span(int tx, int first_tile, int tiles) const {
    const int begin = std::max(first_tile - tx * tiles_h_, 0);
    const int end = std::min(first_tile + tiles - tx * tiles_h_, tiles_h_);
    return {begin, end, tx * tiles_h_ + begin - first_tile};
  }

  // Sizes (not memory) of the buffers for blocks of `block_tiles` tiles. A few spare floats
  // between the kPositions matrices keep their starts from being a power of two apart, which
  // would map the streams of a transform onto the same L1 cache sets.
  Buffers MakeBuffers(int block_tiles) const {
    constexpr size_t kSpacer = 16;
    Buffers buffers;
    buffers.block_tiles = block_tiles;
    buffers.input_step = PackedRowsSize(block_tiles, spec_.in_channels) + kSpacer;
    buffers.product_step = static_cast<size_t>(block_tiles) * spec_.out_channels + kSpacer;
    return buffers;
  }

  // M_xi = V_xi U_xi for the block's tiles, output columns of panels [first_panel, end_panel).
  void Multiply(int xi, int tiles, const Buffers& buffers, int first_panel, int end_panel) const {
    GemmPacked(tiles, buffers.input + xi * buffers.input_step, transformed_weights_[xi],
               buffers.products + xi * buffers.product_step, buffers.block_tiles, first_panel,
               end_panel);
  }

  // V_xi[t, c] = (B^T d_tc B)[xi] for input channel c and the block's tiles, written into the
  // packed row panels of position xi. B^T d B is separable, so it runs as two passes:
  //   1. down each input column: rows[x][r][ty] = (B^T d)[r] for the input rows of tile row ty;
  //   2. across: V_(r,s)[t] = B^T applied to rows[kTile tx + s'][r][ty] for s' < kInputTile, one
  //      vector loop over ty.
  void TransformInput(const Tensor& input, int c, int first_tile, int tiles,
                      const Buffers& buffers) const {
    const Window2d& w = spec_.window;
    const float* source = input.channel_data(c);  // column-major input_h x input_w
    const int first_column = first_tile / tiles_h_;
    const int columns = (first_tile + tiles - 1) / tiles_h_ - first_column + 1;
    const int input_columns = kTile * columns + kInputTile - kTile;
    float* rows = ThreadScratch(ScratchSlot::kFirst,
                                static_cast<size_t>(input_columns) * kInputTile * tiles_h_);
    for (int local_x = 0; local_x < input_columns; ++local_x) {
      const int x = kTile * first_column - w.pad_left + local_x;
      float* target = rows + static_cast<size_t>(local_x) * kInputTile * tiles_h_;  // [r][ty]
      if (x < 0 || x >= spec_.input_w) {
        std::fill(target, target + kInputTile * tiles_h_, 0.0f);
        continue;
      }
      const float* column = source + x * spec_.input_h;
      // Tile rows whose input rows all lie inside the image take the unchecked loop, which the
      // compiler vectorises (loads with a stride of kTile); the few at the edges are checked.
      const int inside_begin = std::min(tiles_h_, (w.pad_top + kTile - 1) / kTile);
      const int last_inside = spec_.input_h + w.pad_top - kInputTile;  // top row <= this
      const int inside_end = last_inside < 0
                                 ? inside_begin
                                 : std::clamp(last_inside / kTile + 1, inside_begin, tiles_h_);
      const auto edge_row = [&](int ty) {
        const int top = kTile * ty - w.pad_top;
        float d[kInputTile];
        for (int i = 0; i < kInputTile; ++i) {
          const int y = top + i;
          d[i] = y >= 0 && y < spec_.input_h ? column[y] : 0.0f;
        }
        Matrices::Input(d, 1, target + ty, tiles_h_);
      };
      for (int ty = 0; ty < inside_begin; ++ty) edge_row(ty);
      for (int ty = inside_end; ty < tiles_h_; ++ty) edge_row(ty);
#pragma GCC ivdep
      for (int ty = inside_begin; ty < inside_end; ++ty) {
        Matrices::Input(column + (kTile * ty - w.pad_top), 1, target + ty, tiles_h_);
      }
    }
    const size_t step = buffers.input_step;  // from position (r, s) to (r, s + 1)
    for (int local_column = 0; local_column < columns; ++local_column) {
      const ColumnSpan span = Span(first_column + local_column, first_tile, tiles);
      for (int r = 0; r < kInputTile; ++r) {
        // Row r of (B^T d) in the tile column's input columns, one every kInputTile rows.
        const size_t first_row = static_cast<size_t>(kTile * local_column) * kInputTile + r;
        const float* q = rows + first_row * tiles_h_;
        const int q_step = kInputTile * tiles_h_;
        // The tiles of a column are consecutive rows of V; split them at panel boundaries.
        for (int ty = span.begin; ty < span.end;) {
          const int t = span.offset + ty - span.begin;
          const int count = std::min(span.end - ty, kPanelRows - t % kPanelRows);
          float* v = buffers.input + PackedRowIndex(t, c, spec_.in_channels) +
                     static_cast<size_t>(r) * kInputTile * step;
          // Inputs and outputs never overlap: let the compiler vectorise over i.
#pragma GCC ivdep
          for (int i = 0; i < count; ++i) {
            Matrices::Input(q + ty + i, q_step, v + i, static_cast<int>(step));
          }
          ty += count;
        }
      }
    }
    // Rows of the last panel past the block's end are padding: zeros, one contiguous run per xi.
    if (tiles % kPanelRows != 0) {
      const int padding = kPanelRows - tiles % kPanelRows;
      for (int xi = 0; xi < kPositions; ++xi) {
        float* v = buffers.input + xi * step + PackedRowIndex(tiles, c, spec_.in_channels);
        std::fill(v, v + padding, 0.0f);
      }
    }
  }

  // Y = activation(A^T M A + bias) for output channel k over the block's tiles. Also two passes:
  // across (A^T along s, per output column j, vectorised over ty), then down each output column.
  void TransformOutput(int k, int first_tile, int tiles, const Buffers& buffers,
                       Tensor* output) const {
    const int output_h = spec_.output_h;
    const size_t step = buffers.product_step;  // between consecutive positions xi
    const float bias = spec_.bias.empty() ? 0.0f : spec_.bias[k];
    float* u =
        ThreadScratch(ScratchSlot::kFirst, static_cast<size_t>(kTile) * kInputTile * tiles_h_);
    float* target = output->channel_data(k);  // column-major output_h x output_w
    const int first_column = first_tile / tiles_h_;
    const int end_column = (first_tile + tiles - 1) / tiles_h_ + 1;
    WithActivation(spec_.activation, [&](auto activation) {
      for (int tx = first_column; tx < end_column; ++tx) {
        const ColumnSpan span = Span(tx, first_tile, tiles);
        const int count = span.end - span.begin;
        // u[j][r][i] = sum over s of M_(r,s)[tile i of the span] * A[s][j]
        const float* m =
            buffers.products + static_cast<size_t>(k) * buffers.block_tiles + span.offset;
        for (int r = 0; r < kInputTile; ++r) {
          const float* row = m + static_cast<size_t>(r) * kInputTile * step;
          float* u_row = u + r * tiles_h_;
#pragma GCC ivdep
          for (int i = 0; i < count; ++i) {
            Matrices::Output(row + i, static_cast<int>(step), u_row + i, kInputTile * tiles_h_);
          }
        }
        // Down: output column x = kTile tx + j gets, for each tile row, 4 rows of A^T u[j][.][i].
        for (int j = 0; j < kTile && kTile * tx + j < spec_.output_w; ++j) {
          float* column = target + (kTile * tx + j) * output_h;
          const float* uj = u + static_cast<size_t>(j) * kInputTile * tiles_h_;
          for (int i = 0; i < count; ++i) {
            const int ty = span.begin + i;
            float y[kTile];
            Matrices::Output(uj + i, tiles_h_, y, 1);
            const int rows = std::min(kTile, output_h - kTile * ty);
            for (int row = 0; row < rows; ++row) {
              column[kTile * ty + row] = activation(y[row] + bias);
            }
          }
        }
      }
    });
  }

  int tiles_h_, tiles_w_, tiles_;
  int private_tiles_ = 0;                          // the budget of a private block, in tiles
  Buffers shared_;                                 // the shared block's buffers (memory below)
  std::vector<PackedMatrix> transformed_weights_;  // U: kPositions packed C_in x C_out matrices
  std::vector<float> transformed_input_;           // V of the shared block
  std::vector<float> products_;                    // M of the shared block
};

}  // namespace

std::unique_ptr<ConvolutionAlgorithm> MakeWinogradConvolution(const ConvolutionSpec& spec,
                                                              int tile_size) {
  if (!WinogradApplies(spec)) throw Error("Winograd needs a 3x3, stride-1 convolution");
  if (tile_size == 2) return std::make_unique<WinogradConvolution<2>>(spec);
  if (tile_size == 4) return std::make_unique<WinogradConvolution<4>>(spec);
  throw Error(Concat("Winograd F(m x m, 3 x 3) is implemented for m = 2 and 4, not ", tile_size));
}

}  // namespace lumen
