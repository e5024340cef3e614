// Depthwise convolution (groups == in_channels): each output channel reads one input channel, so
// there is nothing for a GEMM to share. Direct loops instead, arranged for the vector unit: the
// channel's input is first copied into a zero-padded, phase-split plane (kernel/padded_plane.hpp:
// no tap needs a bounds check, and whatever the stride each tap of a tile of output rows is one
// contiguous run), then each tile of output rows x output columns is summed over every tap in
// registers and stored once.
//
// Why tiles of several columns: one tap of one column is a chain of multiply-adds into the same
// sums, and each must wait for the one before (4-5 cycles). A tile of kTileColumns columns gives
// the core that many independent chains per weight, enough to keep both FMA units busy.
//
// Maps of few rows (TakesInterleavedPath) take a second path (further down): a register's worth of
// channels side by side in the vector lanes, because a column of 5 or 10 rows leaves a tile of
// rows mostly empty.
// The reference kernel (convolution_reference.cpp) is what the tests compare both paths with.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "base/thread_pool.hpp"
#include "convolution_factories.hpp"
#include "kernel/convolution_algorithm.hpp"
#include "kernel/padded_plane.hpp"
#include "lumen/error.hpp"
#include "math/simd.hpp"

// The tap loops ask to be unrolled: fully for the kernel sizes given at compile time, which is
// the point, and not at all for the general case, whose sizes are only known at run time. Clang
// warns about the second; GCC unrolls what it can without a word.
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpass-failed"
#endif

namespace lumen {
namespace {

// GCC's portable SIMD type, one AVX2 register: arithmetic on it compiles to vector instructions.
constexpr int kLanes = 8;
using Vector = FloatVector<kLanes>;

// A tile is kTileVectors vectors of kBandLanes rows (16 rows) by at most kTileColumns output
// columns. AVX2: two 8-lane vectors by 6 columns, whose 12 sums, one broadcast weight and the
// loads folded into the multiply-adds fit its 16 registers. AVX-512: one 16-lane vector by 8
// columns, half the loads and multiply-adds per row: 0.64-0.96x the time of the AVX2 tile on
// MobileNetV2's, V3's, MnasNet's and ConvNeXt's shapes (BM_DepthwiseConvolution's, one core, the
// two alternating in one process), except 1.0 on 56x56 maps. 10 or 12 columns were 1.1-1.9x
// slower than the AVX2 tile (the compiler no longer kept the tile in registers).
#if defined(__AVX512F__)
constexpr int kBandLanes = 16;
constexpr int kTileVectors = 1;
constexpr int kTileColumns = 8;
#else
constexpr int kBandLanes = 8;
constexpr int kTileVectors = 2;
constexpr int kTileColumns = 6;
#endif
constexpr int kTileRows = kTileVectors * kBandLanes;

// Where a tile's taps lie in the padded plane, worked out once per channel rather than per tile
// (the phase arithmetic divides): a tile column j and tap (ky, kx) read the run that starts
// j * column_step + kx * tap_step floats after the tile's origin, in phase ky's (phase, row).
struct TapSteps {
  size_t column_step = 0;  // floats from one output column's windows to the next one's
  size_t tap_step = 0;     // floats from tap column kx to kx + 1
  int phase_step = 0;      // the phase one kernel row further down adds ...
  int row_step = 0;        // ... and the rows within the phase
};

// The steps of `w` over `plane`.
TapSteps TapStepsFor(const Window2d& w, const PaddedPlane& plane) {
  TapSteps steps;
  steps.column_step = static_cast<size_t>(w.stride_w) * plane.column_floats();
  steps.tap_step = static_cast<size_t>(w.dilation_w) * plane.column_floats();
  steps.phase_step = w.dilation_h % plane.stride;
  steps.row_step = w.dilation_h / plane.stride;
  return steps;
}

// Output rows first_row..first_row + Vectors * Lanes of output columns ox..ox + Columns of one
// channel: out[oy][ox] = bias + sum over taps of weight * padded[oy * stride + ky * dilation]
// [ox * stride + kx * dilation], summed in registers. Only the first `row_count` rows are stored
// (a last, partial tile reads past the map into the plane's tail and throws those sums away).
// Stride 1 or 2 (with dilation 1 and the same stride both ways) is given at compile time, which
// makes every tap's offset a constant multiple of the column's floats; 0 reads it from `steps`.
template <int Lanes, int Vectors, int Columns, int KernelH, int KernelW, int Stride>
inline __attribute__((always_inline)) void DepthwiseTile(
    const float* padded, const PaddedPlane& plane, const TapSteps& steps, const float* weights,
    float bias, LaneClamp clamp, const Window2d& w, int ox, int first_row, int row_count,
    float* output, int output_h) {
  using Vector = FloatVector<Lanes>;
  Vector sum[Columns][Vectors];
#pragma GCC unroll 8
  for (int j = 0; j < Columns; ++j) {
#pragma GCC unroll 2
    for (int v = 0; v < Vectors; ++v) sum[j][v] = Vector{} + bias;
  }
  const size_t column_floats = plane.column_floats();
  const size_t column_step = Stride > 0 ? Stride * column_floats : steps.column_step;
  const size_t tap_step = Stride > 0 ? column_floats : steps.tap_step;
  const float* tile_origin = padded + ox * column_step + first_row;
  // Tap row ky's padded row ky * dilation lies in phase (ky * dilation) % stride: kept as a
  // running (phase, row in phase) pair, once per kernel row, out of the multiply-add loop.
  const int stride = Stride > 0 ? Stride : plane.stride;
  const int phase_step = Stride > 0 ? 1 % Stride : steps.phase_step;
  const int row_step = Stride > 0 ? 1 / Stride : steps.row_step;
  const int kernel_h = KernelH > 0 ? KernelH : w.kernel_h;
  const int kernel_w = KernelW > 0 ? KernelW : w.kernel_w;
  int phase = 0;
  int row = 0;
#pragma GCC unroll 7
  for (int ky = 0; ky < kernel_h; ++ky) {
    const float* rows = tile_origin + static_cast<size_t>(phase) * plane.phase_rows + row;
    const float* row_weights = weights + ky * kernel_w;
#pragma GCC unroll 7
    for (int kx = 0; kx < kernel_w; ++kx, rows += tap_step) {
      const float weight = row_weights[kx];
#pragma GCC unroll 8
      for (int j = 0; j < Columns; ++j) {
#pragma GCC unroll 2
        for (int v = 0; v < Vectors; ++v) {
          sum[j][v] += weight * LoadVector<Vector>(rows + j * column_step + v * Lanes);
        }
      }
    }
    phase += phase_step;
    row += row_step;
    if (phase >= stride) {
      phase -= stride;
      ++row;
    }
  }
#pragma GCC unroll 8
  for (int j = 0; j < Columns; ++j) {
    float* target = output + static_cast<size_t>(ox + j) * output_h + first_row;
    if (row_count == Vectors * Lanes) {
#pragma GCC unroll 2
      for (int v = 0; v < Vectors; ++v)
        StoreVector(target + v * Lanes, ClampLanes(sum[j][v], clamp));
    } else {
      // A loop of known length with a condition, not a copy of row_count floats: the compiler
      // makes it a masked store, where a copy became a call to memmove per column.
      float tile[Vectors * Lanes];
#pragma GCC unroll 2
      for (int v = 0; v < Vectors; ++v) StoreVector(tile + v * Lanes, ClampLanes(sum[j][v], clamp));
#pragma GCC unroll 16
      for (int i = 0; i < Vectors * Lanes; ++i) {
        if (i < row_count) target[i] = tile[i];
      }
    }
  }
}

// A tile of `columns` columns, for any 0 < columns <= Columns: DepthwiseTile needs the count at
// compile time, so this tries Columns, then Columns - 1, and so on.
template <int Lanes, int Vectors, int Columns, int KernelH, int KernelW, int Stride>
void NarrowTile(int columns, const float* padded, const PaddedPlane& plane, const TapSteps& steps,
                const float* weights, float bias, LaneClamp clamp, const Window2d& w, int ox,
                int first_row, int row_count, float* output, int output_h) {
  if constexpr (Columns > 0) {
    if (columns == Columns) {
      DepthwiseTile<Lanes, Vectors, Columns, KernelH, KernelW, Stride>(
          padded, plane, steps, weights, bias, clamp, w, ox, first_row, row_count, output,
          output_h);
    } else {
      NarrowTile<Lanes, Vectors, Columns - 1, KernelH, KernelW, Stride>(
          columns, padded, plane, steps, weights, bias, clamp, w, ox, first_row, row_count, output,
          output_h);
    }
  }
}

// Rows first_row.. (row_count of them) of output columns [first_column, end_column) of one
// channel: kTileColumns columns at a time.
template <int Lanes, int Vectors, int KernelH, int KernelW, int Stride>
void DepthwiseRowBand(const float* padded, const PaddedPlane& plane, const TapSteps& steps,
                      const float* weights, float bias, LaneClamp clamp, const Window2d& w,
                      int first_column, int end_column, int first_row, int row_count, float* output,
                      int output_h) {
  int ox = first_column;
  for (; ox + kTileColumns <= end_column; ox += kTileColumns) {
    DepthwiseTile<Lanes, Vectors, kTileColumns, KernelH, KernelW, Stride>(
        padded, plane, steps, weights, bias, clamp, w, ox, first_row, row_count, output, output_h);
  }
  // The last columns, fewer than kTileColumns, in one narrower tile.
  NarrowTile<Lanes, Vectors, kTileColumns - 1, KernelH, KernelW, Stride>(
      end_column - ox, padded, plane, steps, weights, bias, clamp, w, ox, first_row, row_count,
      output, output_h);
}

// Output columns [first_column, end_column) of one output channel: bands of kTileRows rows, a
// short last band in half as many (a 20-row map's second band holds 4 rows).
template <int KernelH, int KernelW, int Stride>
void DepthwiseChannel(const float* padded, const PaddedPlane& plane, const float* weights,
                      float bias, LaneClamp clamp, const Window2d& w, int output_h,
                      int first_column, int end_column, float* output) {
  const TapSteps steps = TapStepsFor(w, plane);
  for (int first_row = 0; first_row < output_h; first_row += kTileRows) {
    const int row_count = std::min(kTileRows, output_h - first_row);
    if (row_count <= kLanes) {
      DepthwiseRowBand<kLanes, 1, KernelH, KernelW, Stride>(padded, plane, steps, weights, bias,
                                                            clamp, w, first_column, end_column,
                                                            first_row, row_count, output, output_h);
    } else {
      DepthwiseRowBand<kBandLanes, kTileVectors, KernelH, KernelW, Stride>(
          padded, plane, steps, weights, bias, clamp, w, first_column, end_column, first_row,
          row_count, output, output_h);
    }
  }
}

// DepthwiseChannel for a window: the common square kernels get their taps unrolled at compile
// time (a 3x3 tile's two 3-step loops cost as much in branches as its multiply-adds), and with
// stride 1 or 2 and no dilation their offsets too; any other window loops.
using ChannelFunction = void (*)(const float*, const PaddedPlane&, const float*, float, LaneClamp,
                                 const Window2d&, int, int, int, float*);
template <int Kernel>
ChannelFunction SquareChannelFunction(const Window2d& w) {
  const bool plain = w.dilation_h == 1 && w.dilation_w == 1 && w.stride_h == w.stride_w;
  if (plain && w.stride_h == 1) return DepthwiseChannel<Kernel, Kernel, 1>;
  if (plain && w.stride_h == 2) return DepthwiseChannel<Kernel, Kernel, 2>;
  return DepthwiseChannel<Kernel, Kernel, 0>;
}
ChannelFunction ChannelFunctionFor(const Window2d& w) {
  if (w.kernel_h == 3 && w.kernel_w == 3) return SquareChannelFunction<3>(w);
  if (w.kernel_h == 5 && w.kernel_w == 5) return SquareChannelFunction<5>(w);
  if (w.kernel_h == 7 && w.kernel_w == 7) return SquareChannelFunction<7>(w);
  return DepthwiseChannel<0, 0, 0>;
}

// Small maps: a group of channels side by side, one per lane of a whole register (8 with AVX2, 16
// with AVX-512). On a 5x5 map a column holds 5 rows, so a tile of rows would leave most of its
// lanes idle and its few sums in long chains; here each lane is a channel instead, and a tile is
// up to kPixelTile output pixels, for the whole group at once. The input is copied interleaved:
// padded pixel (row, col) of the group's channel c at float ((col * rows + row) * kGroupLanes + c),
// zero where no input lands. AVX-512's 16 lanes with masked loads against 8 lanes with scalar
// inserts (BM_DepthwiseConvolution, one core, old and new alternating): MobileNetV3's 720 channels
// on 5x5 22-29 us against 42-54, 504 at stride 2 to 5x5 31-32 against 42-61, ConvNeXt's 128 on
// 6x6 8.6-11.7 against 17.6-26.6.
#if defined(__AVX512F__)
constexpr int kGroupLanes = 16;
#else
constexpr int kGroupLanes = 8;
#endif
using GroupVector = FloatVector<kGroupLanes>;
constexpr int kPixelTile = 8;
static_assert(kPixelTile == kLanes, "a tile's sums are transposed in 8 x 8 blocks");
static_assert(kGroupLanes % kLanes == 0, "a group is whole 8 x 8 blocks");

// The interleaved padded copy of a group of kGroupLanes channels: the rows and columns the windows
// read.
struct InterleavedPlane {
  int rows = 0;
  int cols = 0;
  // Floats to reserve: the plane, plus a vector's floats to align its start for whole-vector loads.
  size_t floats() const { return static_cast<size_t>(rows) * cols * kGroupLanes + kGroupLanes; }
};

// Eight lanes of `pixel`, from lane 8 * block on: one channel block of an 8 x 8 transpose.
inline Vector BlockOf(const GroupVector& pixel, int block) {
#if defined(__AVX512F__)
  return block == 0 ? __builtin_shufflevector(pixel, pixel, 0, 1, 2, 3, 4, 5, 6, 7)
                    : __builtin_shufflevector(pixel, pixel, 8, 9, 10, 11, 12, 13, 14, 15);
#else
  (void)block;
  return pixel;
#endif
}

// A group vector from its channel blocks (blocks[0] the first eight lanes).
inline GroupVector JoinBlocks(const Vector* blocks) {
#if defined(__AVX512F__)
  return __builtin_shufflevector(blocks[0], blocks[1], 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
                                 14, 15);
#else
  return blocks[0];
#endif
}

// Whether a map of `output_h` rows takes the interleaved path. With AVX2's tiles of rows,
// measured with BM_DepthwiseConvolution, it is 1.2-2x faster on 5, 6 and 10 rows, even on 20, and
// 1.2-1.5x slower from 24 rows up, where a tile of 16 rows is full: up to 16 rows. With AVX-512,
// 16-lane tiles of rows first took 0.57-0.85x the time of the 8-channel interleaved path on 14
// and 16 rows of stride 1; the 16-channel groups and masked loads of short columns turned that
// around (one core, alternating): 136 channels on 10x10 10-11 us against 17-22 on tiles of rows,
// 384 on 14x14 45-61 us against 79-89. From 20 rows on the two were within the noise. So up to
// 16 rows on both.
bool TakesInterleavedPath(int output_h) { return output_h <= 16; }

// Copies the input channels of output channels first..first+count into `plane`'s lanes (output
// channel o reads input channel o / multiplier). Writes only where input lands: the caller zeroes
// the plane once, and lanes past `count` are never stored, so what they hold does not matter.
void InterleaveChannels(const float* input, const ConvolutionShape& s, const Window2d& w,
                        int multiplier, int first, int count, const InterleavedPlane& plane,
                        float* target) {
  const size_t input_area = static_cast<size_t>(s.input_h) * s.input_w;
  const int end_row = std::min(s.input_h, plane.rows - w.pad_top);
  const int end_col = std::min(s.input_w, plane.cols - w.pad_left);
  const float* channels[kGroupLanes];
  for (int lane = 0; lane < count; ++lane) {
    channels[lane] = input + static_cast<size_t>((first + lane) / multiplier) * input_area;
  }
  for (int col = 0; col < end_col; ++col) {
    const size_t column = static_cast<size_t>(col) * s.input_h;
    float* to =
        target + (static_cast<size_t>(col + w.pad_left) * plane.rows + w.pad_top) * kGroupLanes;
    int row = 0;
    if (count == kGroupLanes) {
      // Eight rows of the group at a time: a transpose per block of eight channels makes them
      // eight pixels of eight channels (copied element by element, they took over half of this
      // path's time in perf). The last rows, fewer than eight, are read into vectors of zeros,
      // and only they stored.
      for (; row < end_row; row += kLanes) {
        const int rows = std::min(kLanes, end_row - row);
        Vector blocks[kGroupLanes / kLanes][kLanes];
#pragma GCC unroll 2
        for (int b = 0; b < kGroupLanes / kLanes; ++b) {
          Vector* block = blocks[b];
          const float* const* block_channels = channels + b * kLanes;
          if (rows == kLanes) {
#pragma GCC unroll 8
            for (int lane = 0; lane < kLanes; ++lane) {
              block[lane] = LoadVector<Vector>(block_channels[lane] + column + row);
            }
          } else {
#pragma GCC unroll 8
            for (int lane = 0; lane < kLanes; ++lane) {
              block[lane] = LoadFirstLanes(block_channels[lane] + column + row, rows);
            }
          }
          TransposeEight(block);
        }
#pragma GCC unroll 8
        for (int i = 0; i < kLanes; ++i) {
          Vector pixel_blocks[kGroupLanes / kLanes];
#pragma GCC unroll 2
          for (int b = 0; b < kGroupLanes / kLanes; ++b) pixel_blocks[b] = blocks[b][i];
          if (i < rows) {
            StoreVector(to + static_cast<size_t>(row + i) * kGroupLanes, JoinBlocks(pixel_blocks));
          }
        }
      }
    }
    for (int lane = 0; lane < count; ++lane) {
      const float* from = channels[lane] + column;
      for (int r = row; r < end_row; ++r) to[static_cast<size_t>(r) * kGroupLanes + lane] = from[r];
    }
  }
}

// Output pixels first..first+Pixels (column-major, so a tile may run on into the next column)
// for the group's eight channels: out[p] = bias + sum over taps of weight[tap] * padded[pixel of p
// and tap], lane by lane. `origin` holds each pixel's top-left tap in the plane.
template <int Pixels, int KernelH, int KernelW>
void InterleavedTile(const float* const* origin, const InterleavedPlane& plane,
                     const float* weights, const GroupVector& bias, const Window2d& w,
                     GroupVector* result) {
  const int kernel_h = KernelH > 0 ? KernelH : w.kernel_h;
  const int kernel_w = KernelW > 0 ? KernelW : w.kernel_w;
  GroupVector sum[Pixels];
#pragma GCC unroll 8
  for (int p = 0; p < Pixels; ++p) sum[p] = bias;
#pragma GCC unroll 7
  for (int kx = 0; kx < kernel_w; ++kx) {
#pragma GCC unroll 7
    for (int ky = 0; ky < kernel_h; ++ky) {
      const GroupVector weight =
          LoadVector<GroupVector>(weights + static_cast<size_t>(ky * kernel_w + kx) * kGroupLanes);
      const size_t tap = (static_cast<size_t>(kx) * w.dilation_w * plane.rows +
                          static_cast<size_t>(ky) * w.dilation_h) *
                         kGroupLanes;
#pragma GCC unroll 8
      for (int p = 0; p < Pixels; ++p) sum[p] += weight * LoadVector<GroupVector>(origin[p] + tap);
    }
  }
#pragma GCC unroll 8
  for (int p = 0; p < Pixels; ++p) result[p] = sum[p];
}

// InterleavedTile for any 0 < pixels <= Pixels, found the way NarrowTile finds its width.
template <int Pixels, int KernelH, int KernelW>
void InterleavedTileOf(int pixels, const float* const* origin, const InterleavedPlane& plane,
                       const float* weights, const GroupVector& bias, const Window2d& w,
                       GroupVector* result) {
  if constexpr (Pixels > 0) {
    if (pixels == Pixels) {
      InterleavedTile<Pixels, KernelH, KernelW>(origin, plane, weights, bias, w, result);
    } else {
      InterleavedTileOf<Pixels - 1, KernelH, KernelW>(pixels, origin, plane, weights, bias, w,
                                                      result);
    }
  }
}

// One group of up to kGroupLanes output channels on the interleaved path: the output pixels
// kPixelTile at a time in column-major order (a 5x5 map is three tiles of 8 and one of 1, each
// tile's sums independent chains), then each channel's lane scattered back into its plane.
template <int KernelH, int KernelW>
void InterleavedGroup(const float* padded, const InterleavedPlane& plane, const float* weights,
                      const GroupVector& bias, LaneClamp clamp, const Window2d& w,
                      const ConvolutionShape& s, int count, float* output) {
  const int64_t output_area = int64_t{s.output_h} * s.output_w;
  const float* origin[kPixelTile];
  GroupVector result[kPixelTile];
  int ox = 0;  // the output pixel the next tile starts at
  int oy = 0;
  for (int64_t first = 0; first < output_area; first += kPixelTile) {
    const int pixels = static_cast<int>(std::min<int64_t>(kPixelTile, output_area - first));
    for (int p = 0; p < pixels; ++p) {
      origin[p] = padded + (static_cast<size_t>(ox) * w.stride_w * plane.rows +
                            static_cast<size_t>(oy) * w.stride_h) *
                               kGroupLanes;
      if (++oy == s.output_h) {
        oy = 0;
        ++ox;
      }
    }
    InterleavedTileOf<kPixelTile, KernelH, KernelW>(pixels, origin, plane, weights, bias, w,
                                                    result);
    for (int p = 0; p < pixels; ++p) result[p] = ClampLanes(result[p], clamp);
    if (pixels == kPixelTile && count == kGroupLanes) {
      // A whole tile of a whole group: transposed block by block, each channel's eight pixels
      // are one vector.
#pragma GCC unroll 2
      for (int b = 0; b < kGroupLanes / kLanes; ++b) {
        Vector block[kLanes];
#pragma GCC unroll 8
        for (int p = 0; p < kPixelTile; ++p) block[p] = BlockOf(result[p], b);
        TransposeEight(block);
        float* block_output = output + static_cast<size_t>(b) * kLanes * output_area + first;
#pragma GCC unroll 8
        for (int lane = 0; lane < kLanes; ++lane) {
          StoreVector(block_output + static_cast<size_t>(lane) * output_area, block[lane]);
        }
      }
      continue;
    }
    for (int lane = 0; lane < count; ++lane) {
      float* target = output + static_cast<size_t>(lane) * output_area + first;
      for (int p = 0; p < pixels; ++p) target[p] = result[p][lane];
    }
  }
}

using GroupFunction = void (*)(const float*, const InterleavedPlane&, const float*,
                               const GroupVector&, LaneClamp, const Window2d&,
                               const ConvolutionShape&, int, float*);
GroupFunction GroupFunctionFor(const Window2d& w) {
  if (w.kernel_h == 3 && w.kernel_w == 3) return InterleavedGroup<3, 3>;
  if (w.kernel_h == 5 && w.kernel_w == 5) return InterleavedGroup<5, 5>;
  if (w.kernel_h == 7 && w.kernel_w == 7) return InterleavedGroup<7, 7>;
  return InterleavedGroup<0, 0>;
}

// The tiles of rows' padded plane: its columns' phases on whole cache lines where it takes at
// most 32 KB, so that it stays in the L1 cache beside the input it is copied from (48 KB here; a
// 32 KB one still holds the plane). One core, BM_DepthwiseConvolution, against unaligned planes:
// MobileNetV2's 192 channels on 28x28 0.91x, MobileNetV3's 56 on 40x40 0.84x, its 48 on 80x80
// at stride 2 0.93x, MobileNetV2's 144 on 56x56 at stride 2 0.92x; and 16 channels on 112x112,
// whose aligned plane would take 58 KB, 1.09x (so it stays unaligned).
PaddedPlane RowPathPlane(const Window2d& window, const PlanePair& shape) {
  constexpr size_t kMostAlignedBytes = 32 * 1024;
  return AlignedPaddedPlaneFor(window, shape, kMostAlignedBytes);
}

InterleavedPlane InterleavedPlaneFor(const Window2d& window, const ConvolutionShape& shape) {
  const PaddedPlane plane = PaddedPlaneFor(window, shape);
  return InterleavedPlane{plane.rows, plane.cols};
}

class DepthwiseConvolution : public ConvolutionAlgorithm {
 public:
  // Keeps the weights as they are (one kH x kW kernel per output channel, row-major) for tiles of
  // rows, and interleaved by groups of kGroupLanes channels for small maps.
  explicit DepthwiseConvolution(const ConvolutionSpec& spec)
      : ConvolutionAlgorithm(spec), weights_(spec.weights) {
    const int taps = Taps();
    const int groups = (out_channels_ + kGroupLanes - 1) / kGroupLanes;
    interleaved_weights_.assign(static_cast<size_t>(groups) * taps * kGroupLanes, 0.0f);
    interleaved_bias_.assign(static_cast<size_t>(groups) * kGroupLanes, 0.0f);
    for (int channel = 0; channel < out_channels_; ++channel) {
      const int group = channel / kGroupLanes;
      const int lane = channel % kGroupLanes;
      for (int tap = 0; tap < taps; ++tap) {
        interleaved_weights_[(static_cast<size_t>(group) * taps + tap) * kGroupLanes + lane] =
            weights_[static_cast<size_t>(channel) * taps + tap];
      }
      interleaved_bias_[static_cast<size_t>(group) * kGroupLanes + lane] = bias(channel);
    }
  }
  ConvolutionAlgorithmKind kind() const override { return ConvolutionAlgorithmKind::kDepthwise; }

  // One task per thread, each a run of output channels (of channel groups on the interleaved
  // path, which plan.block = kGroupLanes marks), or on wide maps a run of output columns; a task
  // pads one input plane (or its columns) or group at a time in its scratch.
  ConvolutionPlan Plan(const ConvolutionShape& shape, const Activation& activation,
                       int threads) const override {
    ConvolutionPlan plan = BasicPlan(shape, activation);
    if (TakesInterleavedPath(shape.output_h)) {
      plan.block = kGroupLanes;
      plan.scratch(ScratchSlot::kFirst) = InterleavedPlaneFor(window_, shape).floats();
    } else {
      // Room to start the plane on a cache line.
      plan.scratch(ScratchSlot::kFirst) =
          RowPathPlane(window_, shape).floats(kTileRows) + kCacheLineFloats;
      // Tiles of rows on a map of at least two tiles of columns per thread: each thread takes a
      // share of the columns, every channel, so that it reads the input a pointwise layer before
      // it wrote on the same core, and writes the share the pointwise layer after it reads
      // there (see the pointwise kernel's pixel shares).
      plan.contiguous_shares = threads > 1 && shape.output_w >= 2 * kTileColumns * threads;
    }
    return plan;
  }

  void Run(const ConvolutionPlan& plan, const float* input, float* output,
           const ComputeContext& context) const override {
    if (plan.block == kGroupLanes) {
      RunInterleaved(plan, input, output, context);
    } else {
      RunRows(plan, input, output, context);
    }
  }

 private:
  // Output channels per input channel: output channel o reads input channel o / Multiplier().
  int Multiplier() const { return out_channels_ / in_channels_; }
  // Weights per output channel: the window's taps.
  int Taps() const { return window_.kernel_h * window_.kernel_w; }

  // Tiles of rows, one channel at a time.
  void RunRows(const ConvolutionPlan& plan, const float* input, float* output,
               const ComputeContext& context) const {
    const ConvolutionShape& s = plan.shape;
    const Window2d& w = window_;
    const size_t input_area = static_cast<size_t>(s.input_h) * s.input_w;
    const size_t output_area = static_cast<size_t>(s.output_h) * s.output_w;
    const PaddedPlane plane = RowPathPlane(w, s);
    const ChannelFunction compute_channel = ChannelFunctionFor(w);
    // ReLU and ReLU6 are applied to the sums in registers; any other activation after them.
    LaneClamp clamp = LaneClamp::kNone;
    const bool clamped = IsLaneClamp(plan.activation, &clamp);
    // A task is a run of channels, all columns; or with contiguous shares a run of columns, all
    // channels.
    const int tasks = Tasks(context, plan.contiguous_shares ? s.output_w : out_channels_);
    ParallelFor(
        context.pool, tasks,
        [&](std::ptrdiff_t task) {
          float* scratch =
              context.Scratch(ScratchSlot::kFirst, plane.floats(kTileRows) + kCacheLineFloats);
          float* padded = reinterpret_cast<float*>(
              (reinterpret_cast<uintptr_t>(scratch) + sizeof(float) * kCacheLineFloats - 1) &
              ~(sizeof(float) * kCacheLineFloats - 1));
          // The padding, and the tail that a last partial tile reads past the plane.
          std::fill(padded, padded + plane.floats(kTileRows), 0.0f);
          int first_channel = 0;
          int end_channel = out_channels_;
          int first_column = 0;
          int end_column = s.output_w;
          if (plan.contiguous_shares) {
            first_column = static_cast<int>(task * s.output_w / tasks);
            end_column = static_cast<int>((task + 1) * s.output_w / tasks);
          } else {
            first_channel = static_cast<int>(task * out_channels_ / tasks);
            end_channel = static_cast<int>((task + 1) * out_channels_ / tasks);
          }
          // The input columns those output columns' windows read.
          const int first_input = first_column * w.stride_w - w.pad_left;
          const int end_input =
              (end_column - 1) * w.stride_w + (w.kernel_w - 1) * w.dilation_w + 1 - w.pad_left;
          for (int channel = first_channel; channel < end_channel; ++channel) {
            CopyColumnsIntoPlane(input + (channel / Multiplier()) * input_area, s.input_h,
                                 s.input_w, w.pad_top, w.pad_left, first_input, end_input, plane,
                                 padded);
            const float* weights = weights_.data() + static_cast<size_t>(channel) * Taps();
            float* target = output + channel * output_area;
            compute_channel(padded, plane, weights, bias(channel), clamp, w, s.output_h,
                            first_column, end_column, target);
            if (!clamped) {
              Activate(plan.activation, target + static_cast<size_t>(first_column) * s.output_h,
                       static_cast<size_t>(end_column - first_column) * s.output_h);
            }
          }
        },
        plan.contiguous_shares ? Schedule::kByThread : Schedule::kStatic);
  }

  // Groups of kGroupLanes channels side by side (small maps).
  void RunInterleaved(const ConvolutionPlan& plan, const float* input, float* output,
                      const ComputeContext& context) const {
    const ConvolutionShape& s = plan.shape;
    const Window2d& w = window_;
    const size_t output_area = static_cast<size_t>(s.output_h) * s.output_w;
    const InterleavedPlane plane = InterleavedPlaneFor(w, s);
    const GroupFunction compute_group = GroupFunctionFor(w);
    LaneClamp clamp = LaneClamp::kNone;  // as in RunRows
    const bool clamped = IsLaneClamp(plan.activation, &clamp);
    const int groups = (out_channels_ + kGroupLanes - 1) / kGroupLanes;
    const int tasks = Tasks(context, groups);
    ParallelFor(context.pool, tasks, [&](std::ptrdiff_t task) {
      float* scratch = context.Scratch(ScratchSlot::kFirst, plane.floats());
      // Whole vectors are loaded from the plane: start it on a vector boundary.
      float* padded = reinterpret_cast<float*>(
          (reinterpret_cast<uintptr_t>(scratch) + sizeof(GroupVector) - 1) &
          ~(sizeof(GroupVector) - 1));
      std::fill(padded, padded + plane.floats() - kGroupLanes, 0.0f);
      const int first_group = static_cast<int>(task * groups / tasks);
      const int end_group = static_cast<int>((task + 1) * groups / tasks);
      for (int group = first_group; group < end_group; ++group) {
        const int first = group * kGroupLanes;
        const int count = std::min(kGroupLanes, out_channels_ - first);
        InterleaveChannels(input, s, w, Multiplier(), first, count, plane, padded);
        const float* weights =
            interleaved_weights_.data() + static_cast<size_t>(group) * Taps() * kGroupLanes;
        const GroupVector bias = LoadVector<GroupVector>(interleaved_bias_.data() +
                                                         static_cast<size_t>(group) * kGroupLanes);
        float* target = output + first * output_area;
        compute_group(padded, plane, weights, bias, clamp, w, s, count, target);
        for (int lane = 0; lane < count && !clamped; ++lane) {
          Activate(plan.activation, target + lane * output_area, output_area);
        }
      }
    });
  }

  // One task per thread (at most one per unit of work): a task zeroes its scratch once for all
  // its channels.
  static int Tasks(const ComputeContext& context, int units) {
    return context.pool == nullptr ? 1 : std::min(context.pool->threads(), units);
  }

  // The activation alone: the sums started from the bias.
  static void Activate(const Activation& activation, float* values, size_t count) {
    if (activation.kind != Activation::Kind::kIdentity) {
      AddBiasAndActivate(activation, 0.0f, values, count);
    }
  }

  std::vector<float> weights_;              // (out, 1, kH, kW), row-major
  std::vector<float> interleaved_weights_;  // [group][tap][lane], zero past the last channel
  std::vector<float> interleaved_bias_;     // [group][lane]
};

}  // namespace

std::unique_ptr<ConvolutionAlgorithm> MakeDepthwiseConvolution(const ConvolutionSpec& spec) {
  if (!DepthwiseApplies(spec)) throw Error("depthwise convolution needs groups == in_channels");
  return std::make_unique<DepthwiseConvolution>(spec);
}

}  // namespace lumen
