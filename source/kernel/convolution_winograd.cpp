// Winograd F(4x4, 3x3) for 3x3 stride-1 convolutions (Lavin and Gray, 2015).
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
#include <algorithm>

#include "lumen/base/error.hpp"
#include "lumen/base/scratch.hpp"
#include "lumen/kernel/convolution_algorithm.hpp"
#include "lumen/math/packed_gemm.hpp"

namespace lumen {
namespace {

constexpr int kTile = 4;       // output tile size
constexpr int kInputTile = 6;  // kTile + 3 - 1
constexpr int kPositions = kInputTile * kInputTile;

// The three 1-D transforms; the 2-D ones apply them to columns, then to rows.
// g (3) -> G g (6)
void KernelTransform(const float* g, int step, float* out, int out_step) {
  out[0 * out_step] = g[0] / 4.0f;
  out[1 * out_step] = -(g[0] + g[step] + g[2 * step]) / 6.0f;
  out[2 * out_step] = -(g[0] - g[step] + g[2 * step]) / 6.0f;
  out[3 * out_step] = g[0] / 24.0f + g[step] / 12.0f + g[2 * step] / 6.0f;
  out[4 * out_step] = g[0] / 24.0f - g[step] / 12.0f + g[2 * step] / 6.0f;
  out[5 * out_step] = g[2 * step];
}

// d (6) -> B^T d (6)
void InputTransform(const float* d, int step, float* out, int out_step) {
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
void OutputTransform(const float* m, int step, float* out, int out_step) {
  const float m0 = m[0], m1 = m[step], m2 = m[2 * step];
  const float m3 = m[3 * step], m4 = m[4 * step], m5 = m[5 * step];
  out[0 * out_step] = m0 + m1 + m2 + m3 + m4;
  out[1 * out_step] = m1 - m2 + 2.0f * (m3 - m4);
  out[2 * out_step] = m1 + m2 + 4.0f * (m3 + m4);
  out[3 * out_step] = m1 - m2 + 8.0f * (m3 - m4) + m5;
}

class WinogradConvolution : public ConvolutionAlgorithm {
 public:
  explicit WinogradConvolution(const ConvolutionSpec& spec)
      : ConvolutionAlgorithm(spec),
        tiles_h_((spec.output_h + kTile - 1) / kTile),
        tiles_w_((spec.output_w + kTile - 1) / kTile) {
    // U_xi[c, k] = (G g_kc G^T)[xi]: per position a column-major C_in x C_out matrix, packed.
    const int in = spec.in_channels;
    const int out = spec.out_channels;
    std::vector<float> transformed(static_cast<size_t>(kPositions) * in * out);
    for (int k = 0; k < out; ++k) {
      for (int c = 0; c < in; ++c) {
        const float* g = spec.weights.data() + (static_cast<size_t>(k) * in + c) * 9;
        float columns[6 * 3];  // G g: 6 rows x 3 columns, row-major
        for (int j = 0; j < 3; ++j) KernelTransform(g + j, 3, columns + j, 3);
        float tile[kPositions];  // (G g) G^T: 6 x 6, row-major
        for (int i = 0; i < 6; ++i) KernelTransform(columns + i * 3, 1, tile + i * 6, 1);
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
    // Blocks of whole columns of tiles, about 4 MB of V and M each.
    const int tile_column_floats = kPositions * (in + out) * tiles_h_;
    block_columns_ = std::clamp(1048576 / tile_column_floats, 1, tiles_w_);
    block_tiles_ = block_columns_ * tiles_h_;
    // The 36 matrices of V and of M sit one after another. A few spare floats between them keep
    // their starts from being a power-of-two apart, which would map the 36 streams of a transform
    // onto the same L1 cache sets.
    constexpr size_t kSpacer = 16;
    position_input_size_ = PackedRowsSize(block_tiles_, in) + kSpacer;
    position_product_size_ = static_cast<size_t>(block_tiles_) * out + kSpacer;
    transformed_input_.resize(kPositions * position_input_size_);
    products_.resize(kPositions * position_product_size_);
  }

  const char* name() const override { return "winograd"; }

  // Tiles are numbered down the columns of tiles (t = tx * tiles_h + ty), like the output's
  // column-major pixels, and processed in blocks of whole tile columns sized so that a block's
  // transformed input (V) and products (M) stay in cache. Each block runs three parallel phases:
  // transform the input (per input channel), one GEMM per position xi, transform back (per output
  // channel).
  void Run(const Tensor& input, Tensor* output) override {
    const int out = spec_.out_channels;
    const int panels = transformed_weights_[0].panels();
    const TaskGrid grid = PlanTasks(kPositions, panels);
    for (int first_column = 0; first_column < tiles_w_; first_column += block_columns_) {
      const int columns = std::min(block_columns_, tiles_w_ - first_column);
      const int tiles = columns * tiles_h_;
#pragma omp parallel for schedule(static)
      for (int c = 0; c < spec_.in_channels; ++c) TransformInput(input, c, first_column, columns);
#pragma omp parallel for schedule(dynamic, 1)
      for (int task = 0; task < grid.tasks(); ++task) {
        const int xi = task / grid.panel_groups;
        const int first_panel = task % grid.panel_groups * grid.panels_per_group;
        GemmPacked(tiles, transformed_input_.data() + xi * position_input_size_,
                   transformed_weights_[xi], products_.data() + xi * position_product_size_,
                   block_tiles_, first_panel,
                   std::min(panels, first_panel + grid.panels_per_group));
      }
#pragma omp parallel for schedule(static)
      for (int k = 0; k < out; ++k) TransformOutput(k, first_column, columns, output);
    }
  }

 private:
  // V_xi[t, c] = (B^T d_tc B)[xi] for input channel c and the block's tile columns, written into
  // the packed row panels of position xi. B^T d B is separable, so it runs as two passes:
  //   1. down each input column: rows[x][r][ty] = (B^T d)[r] for the 6 rows of tile row ty;
  //   2. across: V_(r,s)[t] = B^T applied to rows[4 tx + 0..5][r][ty], one vector loop over ty.
  void TransformInput(const Tensor& input, int c, int first_column, int columns) {
    const Window2d& w = spec_.window;
    const float* source = input.channel_data(c);  // column-major input_h x input_w
    const int input_columns = kTile * columns + 2;
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
      for (int ty = 0; ty < tiles_h_; ++ty) {
        const int top = kTile * ty - w.pad_top;
        float d[kInputTile];
        for (int i = 0; i < kInputTile; ++i) {
          const int y = top + i;
          d[i] = y >= 0 && y < spec_.input_h ? column[y] : 0.0f;
        }
        InputTransform(d, 1, target + ty, tiles_h_);
      }
    }
    float* transformed = transformed_input_.data();
    for (int local_column = 0; local_column < columns; ++local_column) {
      for (int r = 0; r < kInputTile; ++r) {
        const float* q[kInputTile];  // row r of (B^T d) for tile columns' 6 input columns
        for (int j = 0; j < kInputTile; ++j) {
          q[j] = rows + (static_cast<size_t>(kTile * local_column + j) * kInputTile + r) * tiles_h_;
        }
        // Tiles of this tile column are consecutive rows of V; split them at panel boundaries.
        for (int ty = 0; ty < tiles_h_;) {
          const int t = local_column * tiles_h_ + ty;
          const int count = std::min(tiles_h_ - ty, kPanelRows - t % kPanelRows);
          float* v = transformed + PackedRowIndex(t, c, spec_.in_channels) +
                     static_cast<size_t>(r) * kInputTile * position_input_size_;
          const size_t step = position_input_size_;  // from position (r, s) to (r, s + 1)
          for (int i = 0; i < count; ++i, ++ty) {
            const float d0 = q[0][ty], d1 = q[1][ty], d2 = q[2][ty];
            const float d3 = q[3][ty], d4 = q[4][ty], d5 = q[5][ty];
            v[i] = 4.0f * d0 - 5.0f * d2 + d4;
            v[i + step] = -4.0f * d1 - 4.0f * d2 + d3 + d4;
            v[i + 2 * step] = 4.0f * d1 - 4.0f * d2 - d3 + d4;
            v[i + 3 * step] = -2.0f * d1 - d2 + 2.0f * d3 + d4;
            v[i + 4 * step] = 2.0f * d1 - d2 - 2.0f * d3 + d4;
            v[i + 5 * step] = 4.0f * d1 - 5.0f * d3 + d5;
          }
        }
      }
    }
    // Rows of the last panel past the block's end are padding: zeros, one contiguous run per xi.
    const int used = columns * tiles_h_;
    if (used % kPanelRows != 0) {
      const int padding = kPanelRows - used % kPanelRows;
      for (int xi = 0; xi < kPositions; ++xi) {
        float* v =
            transformed + xi * position_input_size_ + PackedRowIndex(used, c, spec_.in_channels);
        std::fill(v, v + padding, 0.0f);
      }
    }
  }

  // Y = A^T M A for output channel k over the block's tile columns, then bias and activation.
  // Also two passes: across (A^T along s, per output column j, vectorised over ty), then down.
  void TransformOutput(int k, int first_column, int columns, Tensor* output) const {
    const int output_h = spec_.output_h;
    const size_t step = position_product_size_;  // between consecutive positions xi
    float* u =
        ThreadScratch(ScratchSlot::kSecond, static_cast<size_t>(kTile) * kInputTile * tiles_h_);
    float* target = output->channel_data(k);  // column-major output_h x output_w
    for (int local_column = 0; local_column < columns; ++local_column) {
      // u[j][r][ty] = sum over s of M_(r,s)[t] * A[s][j]
      const float* m = products_.data() + static_cast<size_t>(k) * block_tiles_ +
                       static_cast<size_t>(local_column) * tiles_h_;
      for (int r = 0; r < kInputTile; ++r) {
        const float* row = m + static_cast<size_t>(r) * kInputTile * step;
        float* u0 = u + (0 * kInputTile + r) * tiles_h_;
        float* u1 = u + (1 * kInputTile + r) * tiles_h_;
        float* u2 = u + (2 * kInputTile + r) * tiles_h_;
        float* u3 = u + (3 * kInputTile + r) * tiles_h_;
        for (int ty = 0; ty < tiles_h_; ++ty) {
          const float m0 = row[ty], m1 = row[ty + step], m2 = row[ty + 2 * step];
          const float m3 = row[ty + 3 * step], m4 = row[ty + 4 * step], m5 = row[ty + 5 * step];
          u0[ty] = m0 + m1 + m2 + m3 + m4;
          u1[ty] = m1 - m2 + 2.0f * (m3 - m4);
          u2[ty] = m1 + m2 + 4.0f * (m3 + m4);
          u3[ty] = m1 - m2 + 8.0f * (m3 - m4) + m5;
        }
      }
      // Down: output column x = 4 tx + j gets, for each tile row, 4 rows of A^T u[j][.][ty].
      const int tx = first_column + local_column;
      for (int j = 0; j < kTile && kTile * tx + j < spec_.output_w; ++j) {
        float* column = target + (kTile * tx + j) * output_h;
        const float* uj = u + static_cast<size_t>(j) * kInputTile * tiles_h_;
        for (int ty = 0; ty < tiles_h_; ++ty) {
          float y[kTile];
          OutputTransform(uj + ty, tiles_h_, y, 1);
          const int rows = std::min(kTile, output_h - kTile * ty);
          for (int i = 0; i < rows; ++i) column[kTile * ty + i] = y[i];
        }
        FinishChannel(k, column, output_h);
      }
    }
  }

  int tiles_h_, tiles_w_;
  int block_columns_ = 1;             // tile columns per block
  int block_tiles_ = 0;               // block_columns_ * tiles_h_
  size_t position_input_size_ = 0;    // floats of V per position: packed block_tiles x C_in
  size_t position_product_size_ = 0;  // floats of M per position: block_tiles x C_out
  std::vector<PackedMatrix> transformed_weights_;  // U: 36 packed C_in x C_out matrices
  std::vector<float> transformed_input_;           // V for one block
  std::vector<float> products_;                    // M for one block: 36 (block_tiles x C_out)
};

}  // namespace

std::unique_ptr<ConvolutionAlgorithm> MakeWinogradConvolution(const ConvolutionSpec& spec) {
  if (!WinogradApplies(spec)) throw Error("Winograd F(4x4,3x3) needs a 3x3, stride-1 convolution");
  return std::make_unique<WinogradConvolution>(spec);
}

}  // namespace lumen
