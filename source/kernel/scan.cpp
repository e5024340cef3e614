#include "kernel/scan.hpp"

#include <algorithm>
#include <cstddef>

#include "kernel/lane_groups.hpp"

namespace lumen {
namespace {

// Slices one task scans at most: their running values live on the stack.
constexpr size_t kLanes = 64;

// Below this many elements the scan runs on one thread.
constexpr size_t kParallelElements = 1 << 15;

// Scans `lanes` (at most kLanes) neighbouring slices of `extent` elements each: element e of lane
// l at input[e * stride + l], written to output[e * stride + l].
template <ScanKind kKind>
void ScanLanes(const float* input, float* output, size_t extent, size_t stride, size_t lanes) {
  double running[kLanes];
  std::fill(running, running + lanes, kKind == ScanKind::kSum ? 0.0 : 1.0);
  for (size_t e = 0; e < extent; ++e) {
    const float* row = input + e * stride;
    float* out = output + e * stride;
    for (size_t lane = 0; lane < lanes; ++lane) {
      if constexpr (kKind == ScanKind::kSum) {
        running[lane] += row[lane];
      } else {
        running[lane] *= row[lane];
      }
      out[lane] = static_cast<float>(running[lane]);
    }
  }
}

template <ScanKind kKind>
void ScanSlices(const AxisSplit& split, const float* input, float* output, ThreadPool* pool) {
  ForEachLaneGroup<kLanes>(split, kParallelElements, pool, [&](size_t base, size_t lanes) {
    ScanLanes<kKind>(input + base, output + base, split.extent, split.inner, lanes);
  });
}

}  // namespace

void CumulativeScan(ScanKind kind, const AxisSplit& split, const float* input, float* output,
                    ThreadPool* pool) {
  if (kind == ScanKind::kSum) {
    ScanSlices<ScanKind::kSum>(split, input, output, pool);
  } else {
    ScanSlices<ScanKind::kProduct>(split, input, output, pool);
  }
}

void CumulativeScanReference(ScanKind kind, const AxisSplit& split, const float* input,
                             float* output) {
  ForEachSlice(split, [&](size_t first) {
    double running = kind == ScanKind::kSum ? 0.0 : 1.0;
    for (size_t e = 0; e < split.extent; ++e) {
      const size_t at = first + e * split.inner;
      running = kind == ScanKind::kSum ? running + input[at] : running * input[at];
      output[at] = static_cast<float>(running);
    }
  });
}

}  // namespace lumen
