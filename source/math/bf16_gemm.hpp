// A bf16 GEMM for the layers of a `lumen_quantize --to bf16` file: C = f(A * W^T + bias), with A
// the fp32 activations (m rows of depth k, column-major: im2col columns or a 1x1 layer's input
// planes), rounded to bfloat16 as they are packed, W the bf16 weights (n output channels x k), and
// every product summed in fp32.
//
// Why: AVX512-BF16's vdpbf16ps multiplies two pairs of bf16 values and adds both products to one
// fp32 lane, 32 multiply-adds per instruction on 512-bit registers where vfmadd231ps does 16, and
// it reads half the bytes of weights and packed activations. A bf16 x bf16 product has at most
// 16 significant bits, so it is exact in fp32: what bf16 costs is the rounding of both operands
// (about 2^-9 relative each), never the sums.
//
// Layout (the int8 GEMM's VNNI layout in pairs of k-steps instead of quads): k is padded to an
// even depth; each (row, pair) of A and each (column, pair) of W is one 32-bit cell holding the
// even k-step's bf16 in its low half and the odd one's in its high half, as vdpbf16ps reads them.
//   row panel of A (kBf16PanelRows rows):        for each pair: kBf16PanelRows cells
//   column panel of W (kBf16PanelColumns cols):  for each pair: kBf16PanelColumns cells
// The micro-kernel keeps a kBf16PanelRows x kBf16PanelColumns tile of fp32 sums in registers (28
// of the 32 vector registers, as math/packed_gemm on AVX-512) while it walks the pairs.
//
// AMX (Sapphire Rapids and later) multiplies whole tiles: tdpbf16ps adds the products of a 16 x 16
// tile of weight cells (16 channels by 16 pairs) and a 16 x 16 tile of activation cells (16 pairs
// by 16 rows) to a 16 x 16 tile of fp32 sums, 8192 multiply-adds per instruction (Emerald Rapids:
// about 490 per nanosecond on one core, against the fp32 FMA's 85). Its micro-kernel keeps 32
// channels x 32 rows of sums in four tiles. The activation tiles are read straight from the row
// panels above (a tile row is 16 of a pair's 32 row cells); the weights take their own layout,
// one 32-channel panel after another, each in blocks of 16 pairs holding a channel's 16 cells
// contiguously (a tile row):
//   column panel of W (kAmxPanelColumns channels): for each block of kAmxBlockPairs pairs:
//                                                  for each channel: kAmxBlockPairs cells
// Both operands' pairs are padded with zeros to whole blocks (Bf16PackedWeights::pairs()).
//
// Which micro-kernel runs is chosen at run time (base/cpu_features): AMX where the CPU has it,
// else vdpbf16ps where it has AVX512-BF16, else the same layout in plain C++, which computes the
// same sums (slower than fp32: it is for tests, and for LUMEN_BF16_PRODUCTS=on). Layers take this
// GEMM where Bf16ProductsWanted() and the layer is not narrow (kBf16LeastDepth); elsewhere they
// widen bf16 weights to fp32 once and run the fp32 kernels.
#ifndef LUMEN_MATH_BF16_GEMM_HPP_
#define LUMEN_MATH_BF16_GEMM_HPP_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/bfloat16.hpp"
#include "base/compute_context.hpp"
#include "math/activation.hpp"

namespace lumen {

// The micro-kernels' tiles: 32 rows for all, so that one packing of the activations serves them;
// 14 columns of weights for the vector kernels, 32 for AMX's.
inline constexpr int kBf16PanelRows = 32;
inline constexpr int kBf16PanelColumns = 14;
inline constexpr int kAmxPanelColumns = 32;
// Pairs per AMX tile row: the depth the AMX operands are padded to.
inline constexpr int kAmxBlockPairs = 16;

// The bf16 kernels, from the slowest to the fastest.
enum class Bf16Isa { kGeneric, kAvx512Bf16, kAmxBf16 };

// The fastest kernel DetectedCpuFeatures() allows.
Bf16Isa BestBf16Isa();
// Whether this CPU (as LUMEN_ISA limits it) can run the kernel.
bool Bf16IsaAvailable(Bf16Isa isa);
// Its name, for messages and benchmark labels.
const char* Bf16IsaName(Bf16Isa isa);
// Whether the bf16 GEMM beats fp32 here: the CPU has AMX, or it has vdpbf16ps and, measured on
// first call, that makes clearly more products per second than the fp32 FMA (not so on Intel's
// Emerald Rapids, whose AMX does).
bool Bf16GemmIsFast();
// Whether layers with bf16 weights should multiply in bf16: Bf16GemmIsFast(), unless the
// environment variable LUMEN_BF16_PRODUCTS says "off" (never) or "on" (always: the plain C++
// kernel where the CPU lacks vdpbf16ps, to see a bf16 machine's numbers on another one).
bool Bf16ProductsWanted();
// The narrowest layers that multiply in bf16 (fewer products per output, or fewer outputs, stay
// fp32): their products gain least from bf16, and rounding their inputs was most of bf16's error
// on MobileNetV2 0.5 (cosine with fp32, min / mean over 32 inputs: 0.99826 / 0.99898 with every
// layer in bf16, 0.99906 / 0.99939 without these; the weights' rounding alone 0.99915 / 0.99940).
inline constexpr int kBf16LeastDepth = 24;
inline constexpr int kBf16LeastOutputs = 32;

// The 32-bit cell of two k-steps: bf16(even) in the low half, bf16(odd) in the high half, each
// rounded to the nearest, ties to even (base/bfloat16).
// Inline: the packing loops call it for every activation, and vectorise only if they see it.
inline uint32_t Bf16Pair(float even, float odd) {
  return uint32_t{FloatToBFloat16(even)} | uint32_t{FloatToBFloat16(odd)} << 16;
}

// The weights W (n x k), rounded to bf16 and packed once into column panels.
class Bf16PackedWeights {
 public:
  // Nothing packed.
  Bf16PackedWeights() = default;
  // Packs channel j's k weights, found at weights + j * ldw (fp32 values; bf16 files' weights are
  // exactly representable, others are rounded). Throws lumen::Error for a non-positive size or
  // ldw < k.
  Bf16PackedWeights(const float* weights, int n, int k, int ldw, Bf16Isa isa = BestBf16Isa());

  // The shared dimension k.
  int depth() const { return depth_; }
  // Output channels n.
  int channels() const { return channels_; }
  // k-step pairs per column: k rounded up to even, halved, and for AMX rounded up to whole blocks
  // of kAmxBlockPairs. The activations are packed to as many pairs.
  int pairs() const { return pairs_; }
  // The kernel that multiplies with these weights.
  Bf16Isa isa() const { return isa_; }
  // Channels per column panel: kBf16PanelColumns, or kAmxPanelColumns for AMX.
  int panel_columns() const {
    return isa_ == Bf16Isa::kAmxBf16 ? kAmxPanelColumns : kBf16PanelColumns;
  }
  // Column panels: channels() in panels of panel_columns(), the last padded with zeros.
  int column_panels() const { return (channels_ + panel_columns() - 1) / panel_columns(); }
  // Column panel `panel`: pairs() x panel_columns() cells.
  const uint32_t* panel(int panel) const {
    return cells_.data() + static_cast<size_t>(panel) * pairs() * panel_columns();
  }

 private:
  int depth_ = 0;
  int channels_ = 0;
  int pairs_ = 0;
  Bf16Isa isa_ = Bf16Isa::kGeneric;
  std::vector<uint32_t> cells_;
};

// Cells that m rows take in bf16 row panels of `pairs` pairs (the weights' pairs(); the last panel
// padded to kBf16PanelRows rows).
size_t Bf16PackedRowsCells(int m, int pairs);

// Packs rows [0, m) of the column-major fp32 A (depth k, leading dimension lda) into row panels
// of `pairs` bf16 pairs at `packed` (pairs >= (k + 1) / 2: the weights' pairs()), zero padding the
// last panel's rows, an odd k's last pair and the pairs past k.
void PackBf16Rows(const float* a, int lda, int m, int k, int pairs, uint32_t* packed);

// PackBf16Rows for an A that math/packed_gemm's PackRows laid out (row panels of kPanelRows rows,
// depth k): the bf16 operand of a left-hand side built in the fp32 GEMM's layout, as the Winograd
// input transform writes its tiles.
void RepackBf16Rows(const float* packed_rows, int m, int k, int pairs, uint32_t* packed);

// C = A * W^T for an A already in bf16 row panels (m rows, weights.pairs() pairs), C column-major
// (ldc >= m), computing only the columns of weight panels [first_panel, end_panel) (of
// weights.column_panels()), without bias or activation, on the calling thread: the bf16 form of
// math/packed_gemm's GemmPacked.
void Bf16GemmPacked(int m, const uint32_t* packed_a, const Bf16PackedWeights& weights,
                    int first_panel, int end_panel, float* c, int ldc);

// C = f(A * W^T + bias[j]) for the m x k fp32 A (column-major, leading dimension lda), C
// column-major (element (i, j) at c[i + j * ldc]); bias may be null. Packs A block by block in the
// context's scratch (ScratchSlot::kGemmPacking) and spreads the blocks over the context's threads
// (one thread when called from inside a parallel loop). Throws lumen::Error for leading
// dimensions shorter than m or weights for a kernel this CPU cannot run.
void Bf16Gemm(int m, const float* a, int lda, const Bf16PackedWeights& weights, const float* bias,
              const Activation& activation, float* c, int ldc, const ComputeContext& context);

// y[j] = f(sum_p x[p] * W[j, p] + bias[j]) for one row x (element p at x[p * stride]) and all n
// channels, y contiguous: the matrix-vector product of a Linear at batch 1, where the GEMM's row
// panels would be mostly padding. x is rounded to bf16 pairs in the calling thread's scratch
// (ScratchSlot::kGemmPacking, Bf16MatrixVectorScratchSize floats); the threads share the panels.
void Bf16MatrixVector(const float* x, int stride, const Bf16PackedWeights& weights,
                      const float* bias, const Activation& activation, float* y,
                      const ComputeContext& context);
// Floats of ScratchSlot::kGemmPacking that Bf16MatrixVector asks for.
size_t Bf16MatrixVectorScratchSize(const Bf16PackedWeights& weights);

// Floats of ScratchSlot::kGemmPacking that Bf16Gemm asks each thread for: callers reserve it
// when they plan, so that their runs do not allocate.
size_t Bf16GemmScratchSize(int m, const Bf16PackedWeights& weights);

// The same values by plain loops: both operands rounded to bf16, the sums in double, then the
// bias and the activation. The reference the kernels are tested against.
void ReferenceBf16Gemm(int m, int n, int k, const float* a, int lda, const float* weights, int ldw,
                       const float* bias, const Activation& activation, float* c, int ldc);

}  // namespace lumen

#endif  // LUMEN_MATH_BF16_GEMM_HPP_
