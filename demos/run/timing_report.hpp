// lumen_run's latency report, as onnxruntime_perf_test and benchncnn give one: untimed warm-up
// runs, then min / median / p90 / max over the timed runs, with the threads and the CPU they ran
// on; and the process facts (/proc/self/status) the other reports print.
#ifndef LUMEN_DEMOS_RUN_TIMING_REPORT_HPP_
#define LUMEN_DEMOS_RUN_TIMING_REPORT_HPP_

#include <chrono>
#include <string>
#include <vector>

#include "json_text.hpp"
#include "lumen/session.hpp"

namespace lumen {
namespace run {

// What the timed runs took, in milliseconds.
struct LatencyStatistics {
  int warmup = 0;
  int runs = 0;
  double min = 0, median = 0, p90 = 0, max = 0, mean = 0;
};

// The statistics of `milliseconds` (at least one value); p90 is the nearest-rank 90th percentile,
// the time 90% of the runs did not exceed.
LatencyStatistics StatisticsOf(std::vector<double> milliseconds);

// Runs the session `warmup` times untimed (first touch of every buffer, scratch grown to its final
// size), then times `repeat` runs (inputs already in place).
LatencyStatistics TimeRuns(Session& session, int warmup, int repeat);

// "Intel(R) Xeon(R) ...": the CPU's model name from /proc/cpuinfo, else the machine type.
std::string CpuDescription();

// A number field of /proc/self/status (Linux), such as "Threads:" or "VmHWM:" (peak RSS, kB).
long ProcessStatus(const std::string& field);

// Milliseconds since `start`.
double ElapsedMilliseconds(std::chrono::steady_clock::time_point start);

// The report as lines for people.
std::string LatencyText(const LatencyStatistics& latency, int threads);

// The report's fields as JSON members (warmup, runs, min_ms ... mean_ms, threads, cpu, blas).
void AddLatencyJson(const LatencyStatistics& latency, int threads, JsonObject* object);

}  // namespace run
}  // namespace lumen

#endif  // LUMEN_DEMOS_RUN_TIMING_REPORT_HPP_
