#include "timing_report.hpp"

#include <sys/utsname.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>

#include "base/threads.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace run {

LatencyStatistics StatisticsOf(std::vector<double> milliseconds) {
  if (milliseconds.empty()) throw Error("no timed runs to report");
  std::sort(milliseconds.begin(), milliseconds.end());
  const size_t count = milliseconds.size();
  LatencyStatistics statistics;
  statistics.runs = static_cast<int>(count);
  statistics.min = milliseconds.front();
  statistics.max = milliseconds.back();
  const size_t middle = count / 2;
  statistics.median =
      count % 2 ? milliseconds[middle] : (milliseconds[middle - 1] + milliseconds[middle]) / 2;
  // Nearest rank: the smallest time at least 90% of the runs are at or below.
  const size_t rank = static_cast<size_t>(std::ceil(0.9 * static_cast<double>(count)));
  statistics.p90 = milliseconds[std::max<size_t>(rank, 1) - 1];
  statistics.mean = std::accumulate(milliseconds.begin(), milliseconds.end(), 0.0) / count;
  return statistics;
}

double ElapsedMilliseconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

LatencyStatistics TimeRuns(Session& session, int warmup, int repeat) {
  for (int i = 0; i < warmup; ++i) session.Run();
  std::vector<double> times;
  times.reserve(static_cast<size_t>(repeat));
  for (int i = 0; i < repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    session.Run();
    times.push_back(ElapsedMilliseconds(start));
  }
  LatencyStatistics statistics = StatisticsOf(times);
  statistics.warmup = warmup;
  return statistics;
}

std::string CpuDescription() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
  }
  struct utsname system {};
  return uname(&system) == 0 ? std::string(system.machine) : std::string("unknown");
}

long ProcessStatus(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field, 0) == 0) return std::atol(line.c_str() + field.size());
  }
  return 0;
}

std::string LatencyText(const LatencyStatistics& latency, int threads) {
  // The first line starts "median X ms, min Y ms" as it always has: scripts/bench.sh reads it.
  char text[512];
  std::snprintf(text, sizeof(text),
                "median %.3f ms, min %.3f ms, p90 %.3f ms, max %.3f ms (%d runs after %d "
                "warm-up, %d threads)\n"
                "CPU: %s (%d cores for this process); process threads: %ld; BLAS: %s\n",
                latency.median, latency.min, latency.p90, latency.max, latency.runs, latency.warmup,
                threads, CpuDescription().c_str(), DefaultThreadCount(), ProcessStatus("Threads:"),
                BlasDescription().c_str());
  return text;
}

void AddLatencyJson(const LatencyStatistics& latency, int threads, JsonObject* object) {
  object->Add("warmup", std::to_string(latency.warmup))
      .Add("runs", std::to_string(latency.runs))
      .Add("min_ms", JsonNumber(latency.min))
      .Add("median_ms", JsonNumber(latency.median))
      .Add("p90_ms", JsonNumber(latency.p90))
      .Add("max_ms", JsonNumber(latency.max))
      .Add("mean_ms", JsonNumber(latency.mean))
      .Add("threads", std::to_string(threads))
      .Add("cores", std::to_string(DefaultThreadCount()))
      .Add("cpu", JsonString(CpuDescription()))
      .Add("blas", JsonString(BlasDescription()));
}

}  // namespace run
}  // namespace lumen
