// What the CPU this process runs on can execute, found at run time.
//
// The library is compiled for the build machine (-march=native) or for a baseline x86-64, but some
// kernels (the int8 GEMM's VNNI path) use instructions that the build may lack: those are compiled
// with a function target attribute and chosen here, when they run, by what the CPU (and the
// operating system, which must save the wider registers on a context switch) supports.
#ifndef LUMEN_BASE_CPU_FEATURES_HPP_
#define LUMEN_BASE_CPU_FEATURES_HPP_

#include <string>

namespace lumen {

// The instruction-set extensions Lumen's kernels choose between. Each is true only when both the
// CPU has it and the operating system has enabled the register state it needs.
struct CpuFeatures {
  bool avx2 = false;
  bool fma = false;
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512_vnni = false;  // vpdpbusd on 512-bit registers
  bool avx_vnni = false;     // vpdpbusd on 256-bit registers (VEX encoded, no AVX-512)
  bool avx512_bf16 = false;  // vdpbf16ps
  // AMX tiles with tdpbf16ps (Sapphire Rapids and later), and the operating system's permission
  // for this process to use the tile registers (Linux grants it on request: arch_prctl).
  bool amx_bf16 = false;
  // AMX tiles with the byte dot products (tdpbsud: s8 x u8 quads into int32), same permission.
  bool amx_int8 = false;

  // A short name for benchmark tables: "AVX-512 VNNI BF16 AMX", "AVX2+FMA", "generic", ...
  std::string Describe() const;
};

// What cpuid and xgetbv report, without any override: what the hardware and OS offer.
CpuFeatures DetectCpuFeaturesUncached();

// `features` limited to the level named by `level` ("generic": none of them, "avx2": AVX2 and
// FMA only, "avx512": all but AMX (bf16 and int8), "native" or empty: unchanged), for testing the
// fallbacks on a machine that has more. Throws lumen::Error for any other name.
CpuFeatures LimitCpuFeatures(CpuFeatures features, const std::string& level);

// The features kernels should use: detected once, limited by the environment variable LUMEN_ISA
// (see LimitCpuFeatures) when it is set. Throws lumen::Error if LUMEN_ISA names no level.
const CpuFeatures& DetectedCpuFeatures();

}  // namespace lumen

#endif  // LUMEN_BASE_CPU_FEATURES_HPP_
