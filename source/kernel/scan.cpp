#include "kernel/scan.hpp"

#include <algorithm>
#include <cstddef>

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
  const size_t extent = split.extent;
  const size_t inner = split.inner;
  const size_t lane_groups = (inner + kLanes - 1) / kLanes;
  ParallelFor(
      pool, static_cast<std::ptrdiff_t>(split.outer * lane_groups),
      [&](std::ptrdiff_t task) {
        const size_t block = static_cast<size_t>(task) / lane_groups;
        const size_t first = static_cast<size_t>(task) % lane_groups * kLanes;
        const size_t base = block * extent * inner + first;
        ScanLanes<kKind>(input + base, output + base, extent, inner,
                         std::min(kLanes, inner - first));
      },
      Schedule::kStatic, split.outer * extent * inner >= kParallelElements);
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
  for (size_t block = 0; block < split.outer; ++block) {
    for (size_t lane = 0; lane < split.inner; ++lane) {
      // Slice (block, lane): element e at first + e * inner.
      const size_t first = block * split.extent * split.inner + lane;
      double running = kind == ScanKind::kSum ? 0.0 : 1.0;
      for (size_t e = 0; e < split.extent; ++e) {
        const size_t at = first + e * split.inner;
        running = kind == ScanKind::kSum ? running + input[at] : running * input[at];
        output[at] = static_cast<float>(running);
      }
    }
  }
}

}  // namespace lumen
