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
//
// With bf16 products (ConvolutionSpec::bf16_products) F(2x2)'s transforms stay fp32 and its GEMMs
// run on math/bf16_gemm: U is packed in bf16 once, and each block's V is repacked to bf16 after
// its input transform. F(4x4) stays fp32: its transforms' coefficients (up to 8 in A, 5 in B)
// amplify bf16's rounding of U and V to errors of 0.1 on outputs of order 1 (measured in the
// tests), where F(2x2)'s, all 0 and +-1, leave it at about bf16's own (6e-3).
#include <algorithm>
#include <cstdint>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

#include "base/thread_pool.hpp"
#include "convolution_factories.hpp"
#include "kernel/convolution_algorithm.hpp"
#include "lumen/error.hpp"
#include "math/bf16_gemm.hpp"
#include "math/packed_gemm.hpp"

namespace lumen {
namespace {

// Before a loop whose iterations never touch each other's data: lets the compiler vectorise it
// without proving that through the pointers. GCC and clang spell it differently (clang warned
// about GCC's spelling in the sanitizer build).
#if defined(__clang__)
#define LUMEN_INDEPENDENT_ITERATIONS _Pragma("clang loop vectorize(assume_safety)")
// The hint asks, it does not require: where clang still does not vectorise (the sanitizer
// build's -O1 with its checks), it warns that the request failed. The loop is correct either way.
#pragma clang diagnostic ignored "-Wpass-failed"
#else
#define LUMEN_INDEPENDENT_ITERATIONS _Pragma("GCC ivdep")
#endif

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

#if defined(__AVX2__) && defined(__FMA__)
// WinogradMatrices<4>::Input for eight consecutive tiles down one column, d at their first input
// row: B^T d for tile t is written at out[i * out_step + t]. The tiles' rows overlap with a step
// of 4, so the scalar form, vectorised across tiles, reads each of its six inputs with a stride of
// 4 (gathers on AVX2, half the input transform's time). Here the 36 rows the tiles span are loaded
// as eight vectors and de-interleaved in registers. Reads d[0] to d[35] (rows of the ninth tile).
inline void InputTransformEightTiles(const float* d, float* out, int out_step) {
  // Rows 4t + i of tile t, i = 0..3, from four vectors of two tiles each; rows 4t + 4 and 4t + 5
  // (the next tile's first two) from the same loads four rows later. After the unpacks, lane j
  // holds tile kLaneTile[j] = 0, 4, 2, 6, 1, 5, 3, 7; the permutation is its own inverse.
  const auto deinterleave = [](const float* rows, __m256* row0, __m256* row1, __m256* row2,
                               __m256* row3) {
    const __m256 a = _mm256_loadu_ps(rows), b = _mm256_loadu_ps(rows + 8);
    const __m256 c = _mm256_loadu_ps(rows + 16), e = _mm256_loadu_ps(rows + 24);
    const __m256 low_ab = _mm256_unpacklo_ps(a, b), high_ab = _mm256_unpackhi_ps(a, b);
    const __m256 low_ce = _mm256_unpacklo_ps(c, e), high_ce = _mm256_unpackhi_ps(c, e);
    *row0 = _mm256_unpacklo_ps(low_ab, low_ce);
    *row1 = _mm256_unpackhi_ps(low_ab, low_ce);
    *row2 = _mm256_unpacklo_ps(high_ab, high_ce);
    *row3 = _mm256_unpackhi_ps(high_ab, high_ce);
  };
  __m256 d0, d1, d2, d3, d4, d5, unused6, unused7;
  deinterleave(d, &d0, &d1, &d2, &d3);
  deinterleave(d + 4, &d4, &d5, &unused6, &unused7);
  const __m256i tile_order = _mm256_setr_epi32(0, 4, 2, 6, 1, 5, 3, 7);
  const auto store = [&](int i, __m256 value) {
    _mm256_storeu_ps(out + static_cast<size_t>(i) * out_step,
                     _mm256_permutevar8x32_ps(value, tile_order));
  };
  const __m256 two = _mm256_set1_ps(2.0f), four = _mm256_set1_ps(4.0f);
  const __m256 five = _mm256_set1_ps(5.0f);
  // The rows of B^T, as in WinogradMatrices<4>::Input.
  store(0, _mm256_fnmadd_ps(five, d2, _mm256_fmadd_ps(four, d0, d4)));
  store(1, _mm256_fnmadd_ps(four, _mm256_add_ps(d1, d2), _mm256_add_ps(d3, d4)));
  store(2, _mm256_fmadd_ps(four, _mm256_sub_ps(d1, d2), _mm256_sub_ps(d4, d3)));
  store(3, _mm256_fmadd_ps(two, _mm256_sub_ps(d3, d1), _mm256_sub_ps(d4, d2)));
  store(4, _mm256_fnmadd_ps(two, _mm256_sub_ps(d3, d1), _mm256_sub_ps(d4, d2)));
  store(5, _mm256_fnmadd_ps(five, d3, _mm256_fmadd_ps(four, d1, d5)));
}

// The four rows of A^T m + bias (WinogradMatrices<4>::Output) for a vector of tiles at once:
// lane t of row(r) is row r of tile t. `Vector` is __m256 (eight tiles) or __m128 (four), whose
// operators GCC compiles to the same vaddps and vfmadd as the intrinsics.
template <typename Vector, typename Row>
inline void OutputRowsOfTiles(Row row, float bias, Vector* y) {
  const Vector m0 = row(0), m1 = row(1), m2 = row(2), m3 = row(3), m4 = row(4), m5 = row(5);
  const Vector sum12 = m1 + m2, difference12 = m1 - m2;
  const Vector sum34 = m3 + m4, difference34 = m3 - m4;
  y[0] = (m0 + sum12) + (sum34 + bias);
  y[1] = (2.0f * difference34 + difference12) + bias;
  y[2] = (4.0f * sum34 + sum12) + bias;
  y[3] = ((8.0f * difference34 + difference12) + m5) + bias;
}

// WinogradMatrices<4>::Output plus `bias` for eight consecutive tiles down one column: m holds
// row r of tile t at m[r * step + t], and the tiles' 32 outputs, four rows each, go to out[0] to
// out[31]. The scalar form writes four rows per tile; here the eight tiles' rows are interleaved in
// registers (a 4 x 8 transpose) and stored as four vectors.
inline void OutputTransformEightTiles(const float* m, int step, float bias, float* out) {
  __m256 y[4];
  OutputRowsOfTiles<__m256>(
      [&](int r) { return _mm256_loadu_ps(m + static_cast<size_t>(r) * step); }, bias, y);
  // Transpose: after the unpacks and shuffles, quarter q of `tiles_a_e` holds tile 0 (low half)
  // and tile 4 (high half), and so on; the lane swaps put the tiles in order.
  const __m256 low01 = _mm256_unpacklo_ps(y[0], y[1]), high01 = _mm256_unpackhi_ps(y[0], y[1]);
  const __m256 low23 = _mm256_unpacklo_ps(y[2], y[3]), high23 = _mm256_unpackhi_ps(y[2], y[3]);
  const __m256 tiles_0_4 = _mm256_shuffle_ps(low01, low23, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 tiles_1_5 = _mm256_shuffle_ps(low01, low23, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 tiles_2_6 = _mm256_shuffle_ps(high01, high23, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 tiles_3_7 = _mm256_shuffle_ps(high01, high23, _MM_SHUFFLE(3, 2, 3, 2));
  _mm256_storeu_ps(out, _mm256_permute2f128_ps(tiles_0_4, tiles_1_5, 0x20));
  _mm256_storeu_ps(out + 8, _mm256_permute2f128_ps(tiles_2_6, tiles_3_7, 0x20));
  _mm256_storeu_ps(out + 16, _mm256_permute2f128_ps(tiles_0_4, tiles_1_5, 0x31));
  _mm256_storeu_ps(out + 24, _mm256_permute2f128_ps(tiles_2_6, tiles_3_7, 0x31));
}

// The same for four consecutive tiles, in 128-bit vectors (maps with fewer than eight whole tiles
// down a column: SqueezeNet's 27- and 13-row ones).
inline void OutputTransformFourTiles(const float* m, int step, float bias, float* out) {
  __m128 y[4];
  OutputRowsOfTiles<__m128>([&](int r) { return _mm_loadu_ps(m + static_cast<size_t>(r) * step); },
                            bias, y);
  _MM_TRANSPOSE4_PS(y[0], y[1], y[2], y[3]);  // now y[t] holds tile t's four rows
  for (int t = 0; t < 4; ++t) _mm_storeu_ps(out + 4 * t, y[t]);
}
#endif

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
  // Transforms the weights (U) once, and sizes the blocks from the channel counts.
  explicit WinogradConvolution(const ConvolutionSpec& spec) : ConvolutionAlgorithm(spec) {
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
      const float* position = transformed.data() + static_cast<size_t>(xi) * in * out;
      if (spec.bf16_products && kTile == 2) {  // channel k's C_in values: n x k, channel-major
        bf16_weights_.emplace_back(position, out, in, in);
      } else {
        transformed_weights_.emplace_back(position, in, out, in);
      }
    }
    // Two ways to cut the tiles into blocks (see Run): private blocks of about 1 MB of V and M
    // (L2-sized, at least one full panel of tiles), or shared blocks of about 4 MB.
    const int tile_floats = kPositions * (in + out);
    private_tiles_ = std::max(kPanelRows, 262144 / tile_floats);
    shared_tiles_ = std::max(kPanelRows, 1048576 / tile_floats / kPanelRows * kPanelRows);
  }

  ConvolutionAlgorithmKind kind() const override {
    return kTile == 4 ? ConvolutionAlgorithmKind::kWinograd4x4
                      : ConvolutionAlgorithmKind::kWinograd2x2;
  }

  // Private blocks when there are enough tiles for every thread to take whole blocks, else shared
  // ones (see Run); and the scratch either needs.
  ConvolutionPlan Plan(const ConvolutionShape& shape, const Activation& activation,
                       int threads) const override {
    ConvolutionPlan plan = BasicPlan(shape, activation);
    const TileGrid tiles = Tiles(shape);
    threads = std::max(threads, 1);
    plan.private_blocks = tiles.count >= int64_t{threads} * private_tiles_ / 2;
    if (plan.private_blocks) {
      // As many blocks as the budget needs, rounded up to a multiple of the threads, with the
      // tiles spread evenly, so that every thread gets the same share.
      int blocks = (tiles.count + private_tiles_ - 1) / private_tiles_;
      blocks = (blocks + threads - 1) / threads * threads;
      plan.block = (tiles.count + blocks - 1) / blocks;
      // A block's GEMMs compute whole panels of kPanelRows tiles: blocks of whole panels (and
      // a short last one) leave none mostly empty. YOLOv5s' 80x80 maps (400 tiles) took 8 blocks
      // of 50 tiles, 16 panels, instead of 6 x 64 + 16, 13 panels: the layer took 0.75-0.80x the
      // time on one and on two threads, ResNet18's 56x56 one 0.82-0.96x, SqueezeNet's 27x27 one
      // 0.91x (one AVX-512 machine, medians of 60 runs, alternating). The threads' shares differ
      // by at most a block, which they take as they come.
      plan.block = std::min(tiles.count, (plan.block + kPanelRows - 1) / kPanelRows * kPanelRows);
    } else {
      plan.block = std::min(shared_tiles_, tiles.count);
      plan.grid = PlanTasks(kPositions, WeightPanels(), threads);
    }
    const Buffers buffers = MakeBuffers(plan.block);
    plan.scratch(ScratchSlot::kSecond) = kPositions * buffers.input_step;
    plan.scratch(ScratchSlot::kThird) = kPositions * buffers.product_step;
    plan.scratch(ScratchSlot::kGemmPacking) = kPositions * buffers.cells_step;
    // TransformInput's rows of B^T d for the input columns of the tile columns a block touches,
    // TransformOutput's rows of A^T M for one chunk of tile columns.
    const int block_columns = std::min(tiles.columns, (plan.block - 1) / tiles.rows + 2);
    const size_t input_columns = static_cast<size_t>(kTile) * block_columns + kInputTile - kTile;
    plan.scratch(ScratchSlot::kFirst) =
        std::max(input_columns * kInputTile * tiles.rows,
                 static_cast<size_t>(kTile) * kInputTile * OutputChunkCapacity(tiles));
    return plan;
  }

  // Tiles are numbered down the columns of tiles (t = tx * tiles_h + ty), like the output's
  // column-major pixels, and processed in blocks of consecutive tiles: transform the block's input
  // tiles (V), one GEMM per position xi (M = V U), transform back. When there are enough tiles,
  // each thread takes whole blocks with private V and M that stay in its own cache; otherwise
  // (small feature maps) all threads share each block, phase by phase.
  void Run(const ConvolutionPlan& plan, const float* input, float* output,
           const ComputeContext& context) const override {
    const ConvolutionShape& s = plan.shape;
    const TileGrid tiles = Tiles(s);
    if (plan.private_blocks) {
      const int blocks = (tiles.count + plan.block - 1) / plan.block;
      ParallelFor(context.pool, blocks, [&](std::ptrdiff_t block) {
        Buffers buffers = MakeBuffers(plan.block);
        buffers.input = context.Scratch(ScratchSlot::kSecond, kPositions * buffers.input_step);
        buffers.products = context.Scratch(ScratchSlot::kThird, kPositions * buffers.product_step);
        const int first_tile = static_cast<int>(block) * plan.block;
        const int count = std::min(plan.block, tiles.count - first_tile);
        for (int c = 0; c < in_channels_; ++c) {
          TransformInput(s, tiles, input, c, first_tile, count, buffers, context);
        }
        if (!bf16_weights_.empty()) {
          buffers.cells = reinterpret_cast<uint32_t*>(
              context.Scratch(ScratchSlot::kGemmPacking, kPositions * buffers.cells_step));
          for (int xi = 0; xi < kPositions; ++xi) RepackInput(xi, count, buffers);
        }
        for (int xi = 0; xi < kPositions; ++xi) Multiply(xi, count, buffers, 0, WeightPanels());
        for (int k = 0; k < out_channels_; ++k) {
          TransformOutput(s, tiles, plan.activation, k, first_tile, count, buffers, output,
                          context);
        }
      });
      return;
    }
    // One block at a time, shared by the threads, so V and M are the calling thread's scratch.
    Buffers shared = MakeBuffers(plan.block);
    shared.input = context.Scratch(ScratchSlot::kSecond, kPositions * shared.input_step);
    shared.products = context.Scratch(ScratchSlot::kThird, kPositions * shared.product_step);
    if (!bf16_weights_.empty()) {
      shared.cells = reinterpret_cast<uint32_t*>(
          context.Scratch(ScratchSlot::kGemmPacking, kPositions * shared.cells_step));
    }
    const int panels = WeightPanels();
    const TaskGrid& grid = plan.grid;
    for (int first_tile = 0; first_tile < tiles.count; first_tile += plan.block) {
      const int count = std::min(plan.block, tiles.count - first_tile);
      ParallelFor(context.pool, in_channels_, [&](std::ptrdiff_t c) {
        TransformInput(s, tiles, input, static_cast<int>(c), first_tile, count, shared, context);
      });
      if (!bf16_weights_.empty()) {
        ParallelFor(context.pool, kPositions,
                    [&](std::ptrdiff_t xi) { RepackInput(static_cast<int>(xi), count, shared); });
      }
      ParallelFor(
          context.pool, grid.tasks(),
          [&](std::ptrdiff_t task_index) {
            const int task = static_cast<int>(task_index);
            const int first_panel = task % grid.panel_groups * grid.panels_per_group;
            Multiply(task / grid.panel_groups, count, shared, first_panel,
                     std::min(panels, first_panel + grid.panels_per_group));
          },
          Schedule::kDynamic);
      ParallelFor(context.pool, out_channels_, [&](std::ptrdiff_t k) {
        TransformOutput(s, tiles, plan.activation, static_cast<int>(k), first_tile, count, shared,
                        output, context);
      });
    }
  }

 private:
  // The output tiles of one input size: `rows` x `columns` tiles of kTile x kTile pixels.
  struct TileGrid {
    int rows, columns, count;
  };
  static TileGrid Tiles(const ConvolutionShape& shape) {
    const int rows = (shape.output_h + kTile - 1) / kTile;
    const int columns = (shape.output_w + kTile - 1) / kTile;
    return {rows, columns, rows * columns};
  }

  // Where one block's V and M live: kPositions matrices each, `*_step` floats apart.
  struct Buffers {
    int block_tiles = 0;      // tiles per block: the rows of V and M
    size_t input_step = 0;    // V_xi: packed block_tiles x C_in
    size_t product_step = 0;  // M_xi: column-major block_tiles x C_out
    size_t cells_step = 0;    // V_xi in bf16 row panels (bf16 products only)
    float* input = nullptr;
    float* products = nullptr;
    uint32_t* cells = nullptr;
  };

  // The part of one tile column tx that a block [first_tile, first_tile + count) covers.
  struct ColumnSpan {
    int begin, end;  // tile rows ty in [begin, end)
    int offset;      // index in the block of tile (tx, begin)
  };
  static ColumnSpan Span(const TileGrid& tiles, int tx, int first_tile, int count) {
    const int begin = std::max(first_tile - tx * tiles.rows, 0);
    const int end = std::min(first_tile + count - tx * tiles.rows, tiles.rows);
    return {begin, end, tx * tiles.rows + begin - first_tile};
  }

  // Sizes (not memory) of the buffers for blocks of `block_tiles` tiles. A few spare floats
  // between the kPositions matrices keep their starts from being a power of two apart, which
  // would map the streams of a transform onto the same L1 cache sets.
  Buffers MakeBuffers(int block_tiles) const {
    constexpr size_t kSpacer = 16;
    Buffers buffers;
    buffers.block_tiles = block_tiles;
    buffers.input_step = PackedRowsSize(block_tiles, in_channels_) + kSpacer;
    buffers.product_step = static_cast<size_t>(block_tiles) * out_channels_ + kSpacer;
    if (!bf16_weights_.empty()) {
      buffers.cells_step = Bf16PackedRowsCells(block_tiles, bf16_weights_[0].pairs()) + kSpacer;
    }
    return buffers;
  }

  // Column panels of U: the units the shared blocks' GEMMs split.
  int WeightPanels() const {
    return bf16_weights_.empty() ? transformed_weights_[0].panels()
                                 : bf16_weights_[0].column_panels();
  }

  // V_xi of the block's `count` tiles, repacked into bf16 row panels (bf16 products).
  void RepackInput(int xi, int count, const Buffers& buffers) const {
    RepackBf16Rows(buffers.input + xi * buffers.input_step, count, in_channels_,
                   bf16_weights_[xi].pairs(), buffers.cells + xi * buffers.cells_step);
  }

  // M_xi = V_xi U_xi for the block's tiles, output columns of panels [first_panel, end_panel).
  void Multiply(int xi, int count, const Buffers& buffers, int first_panel, int end_panel) const {
    if (!bf16_weights_.empty()) {
      Bf16GemmPacked(count, buffers.cells + xi * buffers.cells_step, bf16_weights_[xi], first_panel,
                     end_panel, buffers.products + xi * buffers.product_step, buffers.block_tiles);
      return;
    }
    GemmPacked(count, buffers.input + xi * buffers.input_step, transformed_weights_[xi],
               buffers.products + xi * buffers.product_step, buffers.block_tiles, first_panel,
               end_panel);
  }

  // V_xi[t, c] = (B^T d_tc B)[xi] for input channel c and the block's tiles, written into the
  // packed row panels of position xi. B^T d B is separable, so it runs as two passes:
  //   1. down each input column: rows[x][r][ty] = (B^T d)[r] for the input rows of tile row ty;
  //   2. across: V_(r,s)[t] = B^T applied to rows[kTile tx + s'][r][ty] for s' < kInputTile, one
  //      vector loop over ty.
  void TransformInput(const ConvolutionShape& s, const TileGrid& tiles, const float* input, int c,
                      int first_tile, int count, const Buffers& buffers,
                      const ComputeContext& context) const {
    const Window2d& w = window_;
    const int tiles_h = tiles.rows;
    // Channel c: a column-major input_h x input_w matrix.
    const float* source = input + static_cast<size_t>(c) * s.input_h * s.input_w;
    const int first_column = first_tile / tiles_h;
    const int columns = (first_tile + count - 1) / tiles_h - first_column + 1;
    const int input_columns = kTile * columns + kInputTile - kTile;
    float* rows = context.Scratch(ScratchSlot::kFirst,
                                  static_cast<size_t>(input_columns) * kInputTile * tiles_h);
    for (int local_x = 0; local_x < input_columns; ++local_x) {
      const int x = kTile * first_column - w.pad_left + local_x;
      float* target = rows + static_cast<size_t>(local_x) * kInputTile * tiles_h;  // [r][ty]
      if (x < 0 || x >= s.input_w) {
        std::fill(target, target + kInputTile * tiles_h, 0.0f);
        continue;
      }
      const float* column = source + x * s.input_h;
      // Tile rows whose input rows all lie inside the image take the unchecked loop, which the
      // compiler vectorises (loads with a stride of kTile); the few at the edges are checked.
      const int inside_begin = std::min(tiles_h, (w.pad_top + kTile - 1) / kTile);
      const int last_inside = s.input_h + w.pad_top - kInputTile;  // top row <= this
      const int inside_end = last_inside < 0
                                 ? inside_begin
                                 : std::clamp(last_inside / kTile + 1, inside_begin, tiles_h);
      const auto edge_row = [&](int ty) {
        const int top = kTile * ty - w.pad_top;
        float d[kInputTile];
        for (int i = 0; i < kInputTile; ++i) {
          const int y = top + i;
          d[i] = y >= 0 && y < s.input_h ? column[y] : 0.0f;
        }
        Matrices::Input(d, 1, target + ty, tiles_h);
      };
      for (int ty = 0; ty < inside_begin; ++ty) edge_row(ty);
      for (int ty = inside_end; ty < tiles_h; ++ty) edge_row(ty);
      int ty = inside_begin;
#if defined(__AVX2__) && defined(__FMA__)
      if constexpr (kTile == 4) {
        // Eight tiles at a time while a ninth lies inside too (the loads reach into its rows).
        for (; ty + 8 < inside_end; ty += 8) {
          InputTransformEightTiles(column + (kTile * ty - w.pad_top), target + ty, tiles_h);
        }
      }
#endif
      LUMEN_INDEPENDENT_ITERATIONS
      for (; ty < inside_end; ++ty) {
        Matrices::Input(column + (kTile * ty - w.pad_top), 1, target + ty, tiles_h);
      }
    }
    const size_t step = buffers.input_step;  // from position (r, s) to (r, s + 1)
    for (int local_column = 0; local_column < columns; ++local_column) {
      const ColumnSpan span = Span(tiles, first_column + local_column, first_tile, count);
      for (int r = 0; r < kInputTile; ++r) {
        // Row r of (B^T d) in the tile column's input columns, one every kInputTile rows.
        const size_t first_row = static_cast<size_t>(kTile * local_column) * kInputTile + r;
        const float* q = rows + first_row * tiles_h;
        const int q_step = kInputTile * tiles_h;
        // The tiles of a column are consecutive rows of V; split them at panel boundaries.
        for (int ty = span.begin; ty < span.end;) {
          const int t = span.offset + ty - span.begin;
          const int run = std::min(span.end - ty, kPanelRows - t % kPanelRows);
          float* v = buffers.input + PackedRowIndex(t, c, in_channels_) +
                     static_cast<size_t>(r) * kInputTile * step;
          // Inputs and outputs never overlap: let the compiler vectorise over i.
          LUMEN_INDEPENDENT_ITERATIONS
          for (int i = 0; i < run; ++i) {
            Matrices::Input(q + ty + i, q_step, v + i, static_cast<int>(step));
          }
          ty += run;
        }
      }
    }
    // Rows of the last panel past the block's end are padding: zeros, one contiguous run per xi.
    if (count % kPanelRows != 0) {
      const int padding = kPanelRows - count % kPanelRows;
      for (int xi = 0; xi < kPositions; ++xi) {
        float* v = buffers.input + xi * step + PackedRowIndex(count, c, in_channels_);
        std::fill(v, v + padding, 0.0f);
      }
    }
  }

  // Tiles whose across pass (TransformOutput's first) runs as one vector loop: whole tile columns,
  // as many as fit. One column at a time, the loop was as long as a column has tiles, 7 on a 28x28
  // map and 14 on 55x55, shorter than AVX-512's 16 lanes, so it ran scalar; in chunks the whole
  // layer took 0.79-0.85x the time at SqueezeNet's shapes (55, 27 and 13 rows), 0.92-0.96x at
  // ResNet18's, 0.97x at YOLOv5s' 80x80 (one AVX-512 core, the two builds alternating in one
  // process, medians of 60 runs each).
  static constexpr int kOutputChunkTiles = 128;
  // Tiles in a chunk at most: kOutputChunkTiles, or one whole column of a taller map.
  static int OutputChunkCapacity(const TileGrid& tiles) {
    return std::max(kOutputChunkTiles, tiles.rows);
  }

  // Y = activation(A^T M A + bias) for output channel k over the block's tiles. Also two passes:
  // across (A^T along s, per output column j, vectorised over the tiles of a chunk of tile
  // columns, which follow each other in M), then down each output column.
  void TransformOutput(const ConvolutionShape& s, const TileGrid& tiles,
                       const Activation& activation, int k, int first_tile, int count,
                       const Buffers& buffers, float* output, const ComputeContext& context) const {
    const int output_h = s.output_h;
    const size_t step = buffers.product_step;  // between consecutive positions xi
    const float bias = bias_.empty() ? 0.0f : bias_[k];
    const int capacity = OutputChunkCapacity(tiles);
    float* u =
        context.Scratch(ScratchSlot::kFirst, static_cast<size_t>(kTile) * kInputTile * capacity);
    // Channel k: a column-major output_h x output_w matrix.
    float* target = output + static_cast<size_t>(k) * output_h * s.output_w;
    const int first_column = first_tile / tiles.rows;
    const int end_column = (first_tile + count - 1) / tiles.rows + 1;
    WithActivation(activation, [&](auto function) {
      for (int chunk_begin = first_column; chunk_begin < end_column;) {
        // The chunk: tile columns [chunk_begin, chunk_end), chunk_tiles tiles from chunk_offset.
        const int chunk_offset = Span(tiles, chunk_begin, first_tile, count).offset;
        int chunk_end = chunk_begin;
        int chunk_tiles = 0;
        while (chunk_end < end_column) {
          const ColumnSpan span = Span(tiles, chunk_end, first_tile, count);
          if (chunk_tiles + (span.end - span.begin) > capacity) break;
          chunk_tiles += span.end - span.begin;
          ++chunk_end;
        }
        // u[j][r][t] = sum over s of M_(r,s)[tile t of the chunk] * A[s][j]
        const float* m =
            buffers.products + static_cast<size_t>(k) * buffers.block_tiles + chunk_offset;
        for (int r = 0; r < kInputTile; ++r) {
          const float* row = m + static_cast<size_t>(r) * kInputTile * step;
          float* u_row = u + r * chunk_tiles;
          LUMEN_INDEPENDENT_ITERATIONS
          for (int t = 0; t < chunk_tiles; ++t) {
            Matrices::Output(row + t, static_cast<int>(step), u_row + t, kInputTile * chunk_tiles);
          }
        }
        for (int tx = chunk_begin; tx < chunk_end; ++tx) {
          const ColumnSpan span = Span(tiles, tx, first_tile, count);
          const int span_tiles = span.end - span.begin;
          const int local = span.offset - chunk_offset;  // the column's first tile in u
          // Down: output column x = kTile tx + j gets, for each tile row, 4 rows of A^T u[j][.][i].
          for (int j = 0; j < kTile && kTile * tx + j < s.output_w; ++j) {
            float* column = target + (kTile * tx + j) * output_h;
            const float* uj = u + static_cast<size_t>(j) * kInputTile * chunk_tiles + local;
            int i = 0;
#if defined(__AVX2__) && defined(__FMA__)
            if constexpr (kTile == 4) {
              // Eight whole tiles at a time (the last tile row may be cut by the map's edge).
              for (; i + 8 <= span_tiles && kTile * (span.begin + i + 8) <= output_h; i += 8) {
                OutputTransformEightTiles(uj + i, chunk_tiles, bias,
                                          column + kTile * (span.begin + i));
              }
              // The whole tiles left, fewer than eight, as the last eight (or four) whole tiles,
              // overlapping the group before (whose rows get the same values again): a 55-row
              // map's 13 whole tiles took eight here and five one by one, a 27-row map's six all
              // six.
              const int whole_tiles = std::min(span_tiles, output_h / kTile - span.begin);
              if (i < whole_tiles && whole_tiles >= 8) {
                const int first = whole_tiles - 8;
                OutputTransformEightTiles(uj + first, chunk_tiles, bias,
                                          column + kTile * (span.begin + first));
                i = whole_tiles;
              }
              for (; i + 4 <= whole_tiles; i += 4) {
                OutputTransformFourTiles(uj + i, chunk_tiles, bias,
                                         column + kTile * (span.begin + i));
              }
              if (i < whole_tiles && whole_tiles >= 4) {
                const int first = whole_tiles - 4;
                OutputTransformFourTiles(uj + first, chunk_tiles, bias,
                                         column + kTile * (span.begin + first));
                i = whole_tiles;
              }
            }
#endif
            for (; i < span_tiles; ++i) {
              const int ty = span.begin + i;
              float y[kTile];
              Matrices::Output(uj + i, chunk_tiles, y, 1);
              const int rows = std::min(kTile, output_h - kTile * ty);
              for (int row = 0; row < rows; ++row) column[kTile * ty + row] = y[row] + bias;
            }
          }
        }
        // The activation in a loop of its own over the chunk's rows, still in L1 (inside the
        // loops above, at most kTile rows at a time, it would not vectorise). Once per chunk
        // rather than right after each column's stores: 0.95-0.99x the F(4x4) layers' time on
        // one AVX-512 core, the same for F(2x2).
        if (activation.kind != Activation::Kind::kIdentity) {
          for (int tx = chunk_begin; tx < chunk_end; ++tx) {
            const ColumnSpan span = Span(tiles, tx, first_tile, count);
            const int end_row = std::min(output_h, kTile * span.end);
            for (int x = kTile * tx; x < std::min(kTile * (tx + 1), s.output_w); ++x) {
              float* column = target + static_cast<size_t>(x) * output_h;
              LUMEN_INDEPENDENT_ITERATIONS
              for (int y = kTile * span.begin; y < end_row; ++y) column[y] = function(column[y]);
            }
          }
        }
        chunk_begin = chunk_end;
      }
    });
  }

  int private_tiles_ = 0;                          // the budget of a private block, in tiles
  int shared_tiles_ = 0;                           // the budget of a shared block, in tiles
  std::vector<PackedMatrix> transformed_weights_;  // U: kPositions packed C_in x C_out matrices
  std::vector<Bf16PackedWeights> bf16_weights_;    // U in bf16, for bf16 products
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
