// Winograd F(2x2, 3x3) on quantised values: lumen.QuantizedConv2d's 3x3 stride-1 layers on CPUs
// without VNNI, where the int8 GEMM over im2col rows loses to fp32's own Winograd.
//
// The float Winograd (kernel/convolution_winograd.cpp) turns 36 products per output tile of 2x2
// into 16. Here the same algebra runs on integers, exactly:
//   input   d = q - zero_point (uint8 activations less their zero point: [-255, 255]), 4x4 tiles;
//           V = B^T d B has entries +-1, so |V| <= 4 * 255 = 1020: int16.
//   weights G has halves; 2G = [[2,0,0],[1,1,1],[1,-1,1],[0,0,2]] is integer, so the weights are
//           transformed as U = (2G) g (2G)^T, |U| <= 9 * 128 = 1152: int16.
//   product M = sum over input channels of U * V (element-wise): the int8 GEMM's int16-pair
//           micro-kernel (vpmaddwd) multiplies exactly these operands, 16 GEMMs per block.
//   output  Y = A^T M A = 4 * (the int8 GEMM's exact sum), so Y / 4 is that sum, to the bit.
// Every M and Y fits an int32 while in_channels * 1020 * 1152 < 2^31: up to
// kQuantizedWinogradMostChannels input channels. The dequantisation then is the int8 GEMM's own
// (sum * scale_a * scale_w[j] + bias, activation), so the outputs equal Int8Gemm's on im2col rows.
#ifndef LUMEN_KERNEL_QUANTIZED_WINOGRAD_HPP_
#define LUMEN_KERNEL_QUANTIZED_WINOGRAD_HPP_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/compute_context.hpp"
#include "base/workspace.hpp"
#include "math/activation.hpp"
#include "math/int8_gemm.hpp"
#include "math/window.hpp"

namespace lumen {

// The most input channels whose Winograd-domain sums fit in int32: 1827 * 1020 * 1152 < 2^31.
inline constexpr int kQuantizedWinogradMostChannels = 1827;

// One 3x3 stride-1 quantised convolution's weights in the Winograd domain, and the algorithm.
class QuantizedWinograd {
 public:
  // Whether a convolution of this window, input channels and groups can run here: a 3x3 window
  // of stride 1 and dilation 1 (any zero padding), one group, at most
  // kQuantizedWinogradMostChannels input channels.
  static bool Applies(const Window2d& window, int in_channels, int groups);

  // Transforms the int8 weights (out_channels x in_channels x 3 x 3, PyTorch's order, one scale
  // per output channel) into the 16 weight matrices U, packed for the int16-pair kernel `isa`
  // (kAvx2 or kGeneric). Throws lumen::Error for sizes Applies refuses or an isa of another
  // layout.
  QuantizedWinograd(const int8_t* weights, int out_channels, int in_channels, const float* scales,
                    Int8Isa isa);

  // int16 values of the shared transformed input V of one sample of `shape` that Run needs when
  // it runs on `threads` threads: 0 when every thread gets blocks of tiles of its own (V then lives
  // in each thread's scratch), else the whole sample's V (small maps, whose few blocks are shared
  // by the threads). The caller's buffer: sessions keep it in their state.
  size_t TransformedInputValues(const PlanePair& shape, int threads) const;
  // Floats of `slot` that Run asks each thread for on `shape` (kGemmPacking: a task's products M;
  // kFirst: the input transform's buffers; kSecond: a block's V), 0 for the other slots.
  size_t ScratchFloats(ScratchSlot slot, const PlanePair& shape) const;

  // output = f(scale_a * scale_w[j] * (3x3 convolution of (q - zero_point) and the int8 weights)
  // + bias[j]) for one sample: `input` holds in_channels column-major uint8 planes of shape's
  // input size, `output` out_channels float planes of its output size; bias may be null.
  // `shared_values` holds TransformedInputValues(shape, threads) values, zeroed by the caller
  // once for the shape (Run writes every value but the padding channels', which must stay zero),
  // or is null (every block private, whatever the threads).
  void Run(const PlanePair& shape, const Window2d& window, const uint8_t* input,
           const Uint8Quantization& quantization, const float* bias, const Activation& activation,
           int16_t* shared_values, float* output, const ComputeContext& context) const;

 private:
  // The output tiles of one input size: `rows` x `columns` tiles of 2x2 pixels.
  struct TileGrid {
    int rows, columns, count;
  };
  static TileGrid Tiles(const PlanePair& shape);
  // Values of one position's V for `tile_count` tiles (their row panels, and a spacer).
  size_t PositionValues(int tile_count) const;
  // How Run cuts the tile columns into blocks: `block_columns` whole tile columns each, about
  // 256 KB of V, and how many blocks that makes.
  struct BlockPlan {
    int block_columns = 1;
    int blocks = 1;
  };
  BlockPlan PlanBlocks(const PlanePair& shape) const;
  // Values of one position's V in a private block.
  size_t BlockPositionValues(const PlanePair& shape) const;
  // Tile columns [first_column, end_column) (tiles first_tile .. first_tile + count - 1) and
  // where their V lives: position xi's row panels at values + xi * position_values.
  struct TileBlock {
    int first_column = 0, end_column = 0;
    int first_tile = 0, count = 0;
    int16_t* values = nullptr;
    size_t position_values = 0;
  };
  struct InputBuffers;
  // V of the channel pair `group` (channels 2 group and 2 group + 1) for the block's tiles.
  void TransformInput(const PlanePair& shape, const Window2d& window, const TileGrid& tiles,
                      const uint8_t* input, int zero_point, int group, const TileBlock& block,
                      const ComputeContext& context) const;
  // Zeroes the block's groups past the channel pairs (k padding the kernel reads).
  void ZeroPaddingGroups(const TileBlock& block, int pairs) const;
  // The 16 products M for the block's row panels [first_panel, end_panel) and column panels
  // [first_column_panel, end_column_panel), then their output tiles.
  void MultiplyAndTransformOutput(const PlanePair& shape, const TileGrid& tiles,
                                  const TileBlock& block, int first_panel, int end_panel,
                                  int first_column_panel, int end_column_panel, float a_scale,
                                  const float* bias, const Activation& activation, float* output,
                                  const ComputeContext& context) const;

  int in_channels_ = 0;
  int out_channels_ = 0;
  int groups_ = 0;  // k-groups of the packed operands: channel pairs, padded as the kernel pads
  Int8Isa isa_ = Int8Isa::kGeneric;
  std::vector<float> scales_;
  std::vector<uint8_t> weights_;  // U: 16 positions of column panels, int16 pairs
};

}  // namespace lumen

#endif  // LUMEN_KERNEL_QUANTIZED_WINOGRAD_HPP_
