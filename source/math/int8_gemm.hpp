// An int8 GEMM for quantised convolutions and Linear layers: C = dequantise(A * W^T), with A the
// activations (m rows of depth k, e.g. im2col rows) and W the weights (n output channels x k).
//
// Quantisation (the scheme of issue 29):
//   weights      w = scale_w[j] * q_w           q_w int8, one scale per channel j ([-127, 127] as
//                                               QuantizeWeightsPerChannel makes them; -128 works)
//   activations  a = scale_a * (q_a - zero)     q_a uint8 in [0, 255], one scale and zero point
//   product      sum_p a[i,p] * w[j,p] = scale_a * scale_w[j] * (sum_p q_a * q_w - zero * S[j])
// where S[j] = sum_p q_w[j,p] is computed once, when the weights are packed. The sum of products
// is exact in int32 (k up to kInt8GemmMaxDepth); only the final scaling rounds.
//
// Why uint8 activations with a zero point, and not int8: the hardware's dot-product instructions
// (vpmaddubsw, vpdpbusd) multiply an unsigned byte by a signed one, and the weights need the
// sign; a zero point also spends all 256 levels on an asymmetric range, such as a ReLU's [0, max],
// where a symmetric int8 would waste half of them. (An int8 activation shifted by +128 is the same
// thing with the zero point fixed at 128.)
//
// Layouts follow math/packed_gemm: A column-major (element (i, p) at a[i + p * lda]: im2col
// columns, or a batch of Linear inputs), W as PyTorch stores it (channel j's k weights contiguous),
// C column-major (element (i, j) at c[i + j * ldc]: a convolution's output channels). The weights
// are packed once (Int8PackedWeights); A is packed block by block inside the call. An A of up to
// 4 rows (a Linear at batch 1) takes a matrix-vector path over the same packed weights instead,
// where a row panel of 16 or 32 rows would be mostly padding.
//
// The micro-kernel keeps a tile of int32 sums in vector registers while it walks k, reading a
// group of k-steps at a time: 4 bytes per row and per column, the unit the instructions consume.
// Which kernel runs is chosen at run time (base/cpu_features), each with its own panel layout:
//   AMX           tdpbsud: a 16 x 16 tile of int32 sums of 64 (s8 x u8) products each, exact, in
//                 one instruction (int8_gemm_amx.cpp)
//   AVX-512 VNNI  vpdpbusd: 4 (u8 x s8) products summed into each int32 lane, exact
//   AVX2          vpmaddwd on bytes widened to int16: 2 (int16 x int16) products per lane, exact.
//                 vpmaddubsw would multiply 32 bytes at once, but it adds adjacent u8 x s8
//                 products into int16 with saturation (255 * 127 * 2 > 32767): wrong sums for
//                 large activations against large weights. Widening is exact for every input
//                 and measured about as fast on Zen 3 (see int8_gemm_avx2.cpp).
//   generic       the AVX2 layout in plain C++, for CPUs without AVX2 (and LUMEN_ISA=generic).
#ifndef LUMEN_MATH_INT8_GEMM_HPP_
#define LUMEN_MATH_INT8_GEMM_HPP_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/compute_context.hpp"
#include "math/activation.hpp"

namespace lumen {

// The deepest product whose int32 sums cannot overflow: k * 255 * 128 < 2^31.
inline constexpr int kInt8GemmMaxDepth = 65536;

// The int8 kernels, from the slowest to the fastest.
enum class Int8Isa { kGeneric, kAvx2, kAvx512Vnni, kAmxInt8 };

// The fastest kernel DetectedCpuFeatures() allows.
Int8Isa BestInt8Isa();
// Whether this CPU (as LUMEN_ISA limits it) can run the kernel.
bool Int8IsaAvailable(Int8Isa isa);
// Its name, for messages and benchmark labels.
const char* Int8IsaName(Int8Isa isa);

// A uint8 activation's scale and zero point: a = scale * (q - zero_point).
struct Uint8Quantization {
  float scale = 1.0f;
  int zero_point = 0;
};

// Chooses the scale and zero point that map [min, max] (widened to include 0, so that zero
// padding is exact) onto [0, 255].
Uint8Quantization ChooseUint8Quantization(float min, float max);

// q = clamp(round_half_even(x * (1 / scale)) + zero_point, 0, 255) for `count` values (multiplied
// by the inverse, as PyTorch's fbgemm quantises, so that the loop vectorises); NaN becomes the
// zero point. Throws lumen::Error for a scale that is not positive and finite or a zero point
// outside [0, 255].
void QuantizeToUint8(const float* input, size_t count, const Uint8Quantization& quantization,
                     uint8_t* output);

// Symmetric per-channel quantisation of n x k weights (channel j's k values at weights + j * k):
// scale_j = max|w_j| / 127 (1 for an all-zero channel), q = round_half_even(w / scale_j), so that
// q stays in [-127, 127]. Fills `quantized` (n * k) and `scales` (n).
void QuantizeWeightsPerChannel(const float* weights, int n, int k, std::vector<int8_t>* quantized,
                               std::vector<float>* scales);

// The fp32 values scale_j * q that per-channel int8 weights stand for: `quantized` holds
// scales.size() channels of equal length, one after another.
std::vector<float> DequantizeWeightsPerChannel(const std::vector<int8_t>& quantized,
                                               const std::vector<float>& scales);

// The weights W (n x k int8, one scale per output channel), packed once into the column panels
// the chosen kernel reads, with their per-channel sums for the zero-point correction.
class Int8PackedWeights {
 public:
  // Nothing packed.
  Int8PackedWeights() = default;
  // Packs channel j's k weights, found at weights + j * ldw, for `isa`'s kernel. Packing is plain
  // C++, so it works for any kernel (the tests check the VNNI layout on any CPU); multiplying
  // checks that the CPU runs it. Throws lumen::Error for a non-positive size, k above
  // kInt8GemmMaxDepth, ldw < k, or a scale that is not positive and finite.
  Int8PackedWeights(const int8_t* weights, int n, int k, int ldw, const float* scales,
                    Int8Isa isa = BestInt8Isa());

  // The shared dimension k.
  int depth() const { return depth_; }
  // Output channels n.
  int channels() const { return channels_; }
  // The kernel the panels are laid out for.
  Int8Isa isa() const { return isa_; }
  // Per-channel weight scales.
  const std::vector<float>& scales() const { return scales_; }
  // S[j] = sum of channel j's quantised weights.
  const std::vector<int32_t>& sums() const { return sums_; }
  // The packed panels (bytes).
  const uint8_t* data() const { return data_.data(); }

 private:
  int depth_ = 0;
  int channels_ = 0;
  Int8Isa isa_ = Int8Isa::kGeneric;
  std::vector<float> scales_;
  std::vector<int32_t> sums_;
  std::vector<uint8_t> data_;
};

// C = f(scale_a * scale_w[j] * (sum_p (q_a[i,p] - zero) * q_w[j,p]) + bias[j]) for the m x k
// uint8 A (column-major, leading dimension lda), as float; bias may be null (no bias). Packs A
// block by block in the context's scratch (ScratchSlot::kGemmPacking) and spreads the work over
// the context's threads (one thread when called from inside a parallel loop).
void Int8Gemm(int m, const uint8_t* a, int lda, const Uint8Quantization& a_quantization,
              const Int8PackedWeights& weights, const float* bias, const Activation& activation,
              float* c, int ldc, const ComputeContext& context);

// Int8Gemm's values requantised for the next quantised layer:
// c = clamp(round_half_even(value / scale_c) + zero_c, 0, 255), as QuantizeToUint8 rounds.
void Int8GemmRequantized(int m, const uint8_t* a, int lda, const Uint8Quantization& a_quantization,
                         const Int8PackedWeights& weights, const float* bias,
                         const Activation& activation, const Uint8Quantization& c_quantization,
                         uint8_t* c, int ldc, const ComputeContext& context);

// The exact int32 sums sum_p (q_a[i,p] - zero_point) * q_w[j,p] into C (column-major, ldc), for
// layers that requantise themselves and for tests.
void Int8GemmSums(int m, const uint8_t* a, int lda, int zero_point,
                  const Int8PackedWeights& weights, int32_t* c, int ldc,
                  const ComputeContext& context);

// Floats of ScratchSlot::kGemmPacking that Int8Gemm asks each thread for (A's packed block):
// callers reserve it when they plan, so that their runs do not allocate.
size_t Int8GemmScratchSize(int m, const Int8PackedWeights& weights);

// The int32 sums by three plain loops over unpacked operands (weights channel-major, ldw): the
// reference the kernels are tested against.
void ReferenceInt8GemmSums(int m, int n, int k, const uint8_t* a, int lda, int zero_point,
                           const int8_t* weights, int ldw, int32_t* c, int ldc);

// Int8Gemm by the reference sums and the same epilogue.
void ReferenceInt8Gemm(int m, int n, int k, const uint8_t* a, int lda,
                       const Uint8Quantization& a_quantization, const int8_t* weights, int ldw,
                       const float* scales, const float* bias, const Activation& activation,
                       float* c, int ldc);

}  // namespace lumen

#endif  // LUMEN_MATH_INT8_GEMM_HPP_
