// Run-time CPU detection against what Linux reports in /proc/cpuinfo, and the LUMEN_ISA limits.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "base/cpu_features.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// The flags of the first processor in /proc/cpuinfo (empty if there is no such file).
std::set<std::string> LinuxCpuFlags() {
  std::ifstream file("/proc/cpuinfo");
  std::string line;
  while (std::getline(file, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::set<std::string> flags;
    for (std::string word; words >> word;) flags.insert(word);
    return flags;
  }
  return {};
}

TEST(CpuFeatures, DetectionAgreesWithProcCpuinfo) {
  const std::set<std::string> flags = LinuxCpuFlags();
  if (flags.empty()) GTEST_SKIP() << "no /proc/cpuinfo flags on this system";
  const CpuFeatures features = DetectCpuFeaturesUncached();
  // Linux lists a flag only when it also saves the registers the extension needs, as our
  // detection requires.
  EXPECT_EQ(features.avx2, flags.count("avx2") == 1);
  EXPECT_EQ(features.fma, flags.count("fma") == 1);
  EXPECT_EQ(features.avx512f, flags.count("avx512f") == 1);
  EXPECT_EQ(features.avx512bw, flags.count("avx512bw") == 1);
  EXPECT_EQ(features.avx512_vnni, flags.count("avx512_vnni") == 1);
  EXPECT_EQ(features.avx_vnni, flags.count("avx_vnni") == 1);
  EXPECT_EQ(features.avx512_bf16, flags.count("avx512_bf16") == 1);
  // AMX also needs the process's permission, which Linux grants where it lists the flags.
  EXPECT_EQ(features.amx_bf16, flags.count("amx_tile") == 1 && flags.count("amx_bf16") == 1 &&
                                   flags.count("avx512_bf16") == 1);
  EXPECT_EQ(features.amx_int8, flags.count("amx_tile") == 1 && flags.count("amx_int8") == 1 &&
                                   flags.count("avx512_vnni") == 1 && flags.count("avx512bw") == 1);
}

TEST(CpuFeatures, LimitsLowerTheLevel) {
  CpuFeatures all;
  all.avx2 = all.fma = all.avx512f = all.avx512bw = true;
  all.avx512_vnni = all.avx_vnni = all.avx512_bf16 = all.amx_bf16 = all.amx_int8 = true;
  const CpuFeatures avx2 = LimitCpuFeatures(all, "avx2");
  EXPECT_TRUE(avx2.avx2 && avx2.fma);
  EXPECT_FALSE(avx2.avx512f || avx2.avx512bw || avx2.avx512_vnni || avx2.avx_vnni ||
               avx2.avx512_bf16 || avx2.amx_bf16 || avx2.amx_int8);
  EXPECT_EQ(avx2.Describe(), "AVX2+FMA");
  const CpuFeatures generic = LimitCpuFeatures(all, "generic");
  EXPECT_FALSE(generic.avx2 || generic.fma || generic.avx512f);
  EXPECT_EQ(generic.Describe(), "generic");
  const CpuFeatures avx512 = LimitCpuFeatures(all, "avx512");
  EXPECT_TRUE(avx512.avx512f && avx512.avx512_vnni && avx512.avx512_bf16);
  EXPECT_FALSE(avx512.amx_bf16 || avx512.amx_int8);
  EXPECT_EQ(avx512.Describe(), "AVX-512 VNNI BF16");
  EXPECT_EQ(LimitCpuFeatures(all, "native").Describe(), "AVX-512 VNNI BF16 AMX");
  EXPECT_EQ(LimitCpuFeatures(all, "").Describe(), "AVX-512 VNNI BF16 AMX");
  // A limit never adds what the CPU lacks.
  EXPECT_FALSE(LimitCpuFeatures(CpuFeatures{}, "avx2").avx2);
}

TEST(CpuFeatures, UnknownLevelIsAnError) {
  try {
    LimitCpuFeatures(CpuFeatures{}, "avx9");
    FAIL() << "expected lumen::Error";
  } catch (const Error& error) {
    EXPECT_NE(
        std::string(error.what()).find("expected generic, avx2, avx512 or native, got 'avx9'"),
        std::string::npos)
        << error.what();
  }
}

TEST(CpuFeatures, DetectedFeaturesAreStable) {
  const CpuFeatures& first = DetectedCpuFeatures();
  EXPECT_EQ(&first, &DetectedCpuFeatures());
  EXPECT_FALSE(first.Describe().empty());
}

}  // namespace
}  // namespace lumen
