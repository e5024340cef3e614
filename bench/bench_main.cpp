// Entry point of lumen_bench (Google Benchmark): BENCHMARK_MAIN's steps, after a --version that
// prints the project's version as every Lumen tool does.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "machine_peak.hpp"

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--version") == 0) {
      std::printf("lumen_bench %s\n", LUMEN_VERSION);
      return 0;
    }
  }
  benchmark::Initialize(&argc, argv);
  // The rate the peak% counters are shares of, measured before any benchmark runs.
  benchmark::AddCustomContext("fp32_peak_gflops_per_core",
                              std::to_string(lumen::MeasuredPeakGflops()));
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
