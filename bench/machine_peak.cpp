#include "machine_peak.hpp"

#include <algorithm>
#include <chrono>

#include "math/packed_gemm.hpp"
#include "math/simd.hpp"

namespace lumen {
namespace {

// The vector the GEMM's micro-kernel uses: 8 floats with AVX2, 16 with AVX-512.
constexpr int kLanes = kPanelRows / 2;
using Vector = FloatVector<kLanes>;

// Twelve independent chains of multiply-adds, more than the FMA units' latency times their
// number (4 cycles x 2 units on Zen), so that the loop runs at their throughput. Returns the sum
// so that the compiler keeps the work.
__attribute__((noinline)) float RunChains(long steps, float factor) {
  constexpr int kChains = 12;
  Vector sums[kChains];
#pragma GCC unroll 12
  for (int chain = 0; chain < kChains; ++chain) sums[chain] = Vector{} + 0.001f * chain;
  const Vector scale = Vector{} + factor;
  const Vector offset = Vector{} + 1e-6f;
  for (long step = 0; step < steps; ++step) {
#pragma GCC unroll 12
    for (int chain = 0; chain < kChains; ++chain) sums[chain] = sums[chain] * scale + offset;
  }
  float total = 0.0f;
  for (int chain = 0; chain < kChains; ++chain) {
    for (int lane = 0; lane < kLanes; ++lane) total += sums[chain][lane];
  }
  return total;
}

double Measure() {
  constexpr long kSteps = 2000000;  // about 10 ms
  constexpr double kFlops = 2.0 * 12 * kLanes * kSteps;
  double best = 0.0;
  volatile float sink = 0.0f;
  for (int run = 0; run < 7; ++run) {
    const auto start = std::chrono::steady_clock::now();
    sink = sink + RunChains(kSteps, 0.9999f);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::max(best, kFlops / seconds * 1e-9);
  }
  return best;
}

}  // namespace

double MeasuredPeakGflops() {
  static const double peak = Measure();
  return peak;
}

}  // namespace lumen
