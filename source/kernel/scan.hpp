// Cumulative scans (torch.cumsum, torch.cumprod): element e of each slice along one dimension is
// the sum (or product) of elements 0..e of that slice. Running values are kept in double, as
// PyTorch's CPU kernel keeps them, so that long scans lose nothing to rounding.
#ifndef LUMEN_KERNEL_SCAN_HPP_
#define LUMEN_KERNEL_SCAN_HPP_

#include "base/thread_pool.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// How a scan combines the running value with the next element.
enum class ScanKind { kSum, kProduct };

// The scan of every slice along the middle of `split` (outer x extent x inner, inner fastest),
// from `input` into `output` (which may be the same), spread over `pool` (may be null) when the
// tensor is large enough. Neighbouring slices are scanned together, so the inner loop runs over
// contiguous memory.
void CumulativeScan(ScanKind kind, const AxisSplit& split, const float* input, float* output,
                    ThreadPool* pool);

// The definition, one slice at a time: the reference for CumulativeScan.
void CumulativeScanReference(ScanKind kind, const AxisSplit& split, const float* input,
                             float* output);

}  // namespace lumen

#endif  // LUMEN_KERNEL_SCAN_HPP_
