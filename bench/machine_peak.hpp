// The fp32 multiply-add rate one core of this machine reaches, measured, so that the benchmarks
// can say how far each kernel is from it (issue 28's "60% of peak"): the nominal figure (32 FLOP
// per cycle with AVX2's two FMA units, 64 with AVX-512) times a clock a virtual machine does not
// report reliably.
#ifndef LUMEN_BENCH_MACHINE_PEAK_HPP_
#define LUMEN_BENCH_MACHINE_PEAK_HPP_

namespace lumen {

// GFLOP/s of one core running nothing but independent vector multiply-adds of the width the
// library is built for: the best of a few short runs, measured once per process.
double MeasuredPeakGflops();

}  // namespace lumen

#endif  // LUMEN_BENCH_MACHINE_PEAK_HPP_
