#include "base/cpu_features.hpp"

#include <cstdint>
#include <cstdlib>

#include "lumen/error.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__linux__) && defined(__x86_64__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace lumen {
namespace {

#if defined(__x86_64__) || defined(__i386__)
// The register-state bits the OS has enabled in XCR0 (xgetbv with ecx = 0). Read with inline
// assembly, not _xgetbv, which needs the xsave target on the calling function.
uint64_t EnabledRegisterState() {
  uint32_t low = 0;
  uint32_t high = 0;
  __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
  return (static_cast<uint64_t>(high) << 32) | low;
}

bool Bit(uint32_t value, int bit) { return ((value >> bit) & 1u) != 0; }

// Asks Linux for the AMX tile data state (8 KB per thread, saved on context switches only for
// processes that asked: arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)). The permission
// holds for every thread of the process, those already running included.
bool AmxTilesPermitted() {
#if defined(__linux__) && defined(__x86_64__)
  constexpr int kRequestPermission = 0x1023;  // ARCH_REQ_XCOMP_PERM
  constexpr int kTileData = 18;               // XFEATURE_XTILEDATA
  return syscall(SYS_arch_prctl, kRequestPermission, kTileData) == 0;
#else
  return false;
#endif
}
#endif

}  // namespace

std::string CpuFeatures::Describe() const {
  if (avx512f) {
    std::string text = "AVX-512";
    if (avx512_vnni) text += " VNNI";
    if (avx512_bf16) text += " BF16";
    if (amx_bf16 || amx_int8) text += " AMX";
    return text;
  }
  if (avx2) {
    std::string text = fma ? "AVX2+FMA" : "AVX2";
    if (avx_vnni) text += " AVX-VNNI";
    return text;
  }
  return "generic";
}

CpuFeatures DetectCpuFeaturesUncached() {
  CpuFeatures features;
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_max(0, nullptr) < 7) return features;
  __cpuid(1, eax, ebx, ecx, edx);
  const bool osxsave = Bit(ecx, 27);
  const bool avx = Bit(ecx, 28);
  const bool fma = Bit(ecx, 12);
  if (!osxsave || !avx) return features;
  const uint64_t state = EnabledRegisterState();
  // XMM (bit 1) and YMM (bit 2) state for AVX; opmask, upper ZMM0-15 and ZMM16-31 (bits 5-7) for
  // AVX-512. A CPU that has AVX-512 under an OS that does not save it must not use it.
  const bool ymm_enabled = (state & 0x6) == 0x6;
  const bool zmm_enabled = ymm_enabled && (state & 0xe0) == 0xe0;
  if (!ymm_enabled) return features;
  __cpuid_count(7, 0, eax, ebx, ecx, edx);
  features.avx2 = Bit(ebx, 5);
  features.fma = fma;
  features.avx512f = zmm_enabled && Bit(ebx, 16);
  features.avx512bw = features.avx512f && Bit(ebx, 30);
  features.avx512_vnni = features.avx512f && Bit(ecx, 11);
  // AMX-TILE (edx bit 24) and AMX-BF16 (bit 22), with the tile configuration and data state
  // (XCR0 bits 17 and 18) enabled by the OS.
  const bool tiles = Bit(edx, 24) && (state & 0x60000) == 0x60000;
  const bool amx_bf16 = tiles && Bit(edx, 22);
  const bool amx_int8 = tiles && Bit(edx, 25);  // AMX-INT8
  const unsigned subleaves = eax;
  if (subleaves >= 1) {
    __cpuid_count(7, 1, eax, ebx, ecx, edx);
    features.avx_vnni = features.avx2 && Bit(eax, 4);
    features.avx512_bf16 = features.avx512f && Bit(eax, 5);
  }
  // The AMX kernels also use vdpbf16ps for what tiles do not fit (a single row).
  const bool permitted = (amx_bf16 || amx_int8) && AmxTilesPermitted();
  features.amx_bf16 = features.avx512_bf16 && amx_bf16 && permitted;
  // And the int8 kernels use vpdpbusd for a single row.
  features.amx_int8 = features.avx512_vnni && features.avx512bw && amx_int8 && permitted;
#endif
  return features;
}

CpuFeatures LimitCpuFeatures(CpuFeatures features, const std::string& level) {
  if (level.empty() || level == "native") return features;
  if (level == "avx2") {
    const CpuFeatures detected = features;
    features = CpuFeatures{};
    features.avx2 = detected.avx2;
    features.fma = detected.fma;
    return features;
  }
  if (level == "avx512") {
    features.amx_bf16 = false;
    features.amx_int8 = false;
    return features;
  }
  if (level == "generic") return CpuFeatures{};
  throw Error(Concat("LUMEN_ISA: expected generic, avx2, avx512 or native, got '", level, "'"));
}

const CpuFeatures& DetectedCpuFeatures() {
  static const CpuFeatures features = [] {
    const char* level = std::getenv("LUMEN_ISA");
    return LimitCpuFeatures(DetectCpuFeaturesUncached(), level == nullptr ? "" : level);
  }();
  return features;
}

}  // namespace lumen
