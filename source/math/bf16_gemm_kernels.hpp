// The bf16 GEMM's micro-kernels (internal to math/bf16_gemm*.cpp). Each reads one row panel of A
// and one column panel of W (see math/bf16_gemm.hpp's layouts) over `pairs` k-step pairs, and
// writes the kBf16PanelRows x (kBf16PanelColumns, or kAmxPanelColumns for AMX) tile of fp32 sums at
// sums (column j at sums + j * ld), adding to the tile's values when `accumulate`.
#ifndef LUMEN_MATH_BF16_GEMM_KERNELS_HPP_
#define LUMEN_MATH_BF16_GEMM_KERNELS_HPP_

#include <cstdint>

namespace lumen {

// A micro-kernel's signature.
using Bf16MicroKernel = void (*)(int pairs, const uint32_t* a, const uint32_t* b, float* sums,
                                 int ld, bool accumulate);

// vdpbf16ps on 512-bit registers (bf16_gemm_avx512.cpp, compiled with a target attribute so that
// every build has it; run only where the CPU has AVX512-BF16).
void Avx512Bf16MicroKernel(int pairs, const uint32_t* a, const uint32_t* b, float* sums, int ld,
                           bool accumulate);

// The same sums in plain C++, in the instruction's order: per lane, the odd k-step's product is
// added first, then the even one's, each exact (bf16 x bf16 fits in fp32) and rounded once.
void GenericBf16MicroKernel(int pairs, const uint32_t* a, const uint32_t* b, float* sums, int ld,
                            bool accumulate);

// AMX tiles (bf16_gemm_amx.cpp, compiled with a target attribute; run only where the CPU has AMX
// and the process its permission, see base/cpu_features). `pairs` is a multiple of
// kAmxBlockPairs. Tile registers are configured per thread (math/amx_tiles): AmxTilesBegin()
// before the first micro-kernel of a run of them on a thread, AmxTilesEnd() after the last.
void AmxBf16MicroKernel(int pairs, const uint32_t* a, const uint32_t* b, float* sums, int ld,
                        bool accumulate);

// The matrix-vector kernels: the kBf16PanelColumns sums of one weight panel (over `pairs` pairs)
// with a row already in bf16 pair cells, written to sums[0, kBf16PanelColumns).
using Bf16PanelVector = void (*)(int pairs, const uint32_t* row, const uint32_t* panel,
                                 float* sums);
void Avx512Bf16PanelVector(int pairs, const uint32_t* row, const uint32_t* panel, float* sums);
void GenericBf16PanelVector(int pairs, const uint32_t* row, const uint32_t* panel, float* sums);
// The kAmxPanelColumns sums of one panel in AMX's layout, with vdpbf16ps (a single row would fill
// one sixteenth of a tile).
void Avx512Bf16AmxPanelVector(int pairs, const uint32_t* row, const uint32_t* panel, float* sums);

// Products per nanosecond of vdpbf16ps and of fp32 vfmadd231ps on 512-bit registers, each timed
// on independent accumulators (best of five short runs after a warm-up, about a millisecond). CPUs
// with AVX512-BF16 differ: where vdpbf16ps issues as often as the FMA it makes twice its products;
// on Intel's Emerald Rapids it issues once every two cycles and makes half of them (82 GFLOP/s
// against the FMA's 172), so bf16 products there only lose time. Run only where the CPU has
// AVX512-BF16.
struct Bf16ProductRates {
  double bf16 = 0.0;  // bf16 x bf16 products per nanosecond
  double fp32 = 0.0;  // fp32 x fp32 products per nanosecond
};
Bf16ProductRates MeasureAvx512Bf16ProductRates();

}  // namespace lumen

#endif  // LUMEN_MATH_BF16_GEMM_KERNELS_HPP_
