// Entry point of lumen_bench (Google Benchmark).
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
