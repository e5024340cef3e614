// SlicingLayer: the indexing x[..., start:end:step, ..., index, ...] that Tensor.slice reads and
// Tensor.slice_copy writes, resolved against an input shape into a strided view of its memory.
#ifndef LUMEN_LAYER_LAYOUT_SLICE_PLAN_HPP_
#define LUMEN_LAYER_LAYOUT_SLICE_PLAN_HPP_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "layer/layer.hpp"
#include "tensor/strided.hpp"

namespace lumen {

// Where a slice lies in the sliced tensor's memory: the view's shape, the memory offset of its
// first element and each of its dimensions' memory step.
using SlicePlan = StorageView;

// A slice as lists, one entry per sliced or selected dimension: dims[i] is sliced from starts[i]
// to ends[i] in steps of steps[i], unless selects[i] is an index (then only that index is kept and
// the dimension goes; kNoSelect where the entry is a slice).
struct SliceBounds {
  static constexpr int64_t kNoSelect = 2147483647;
  std::vector<int64_t> dims, starts, ends, steps, selects;
};

// The positions [begin, end) that a slice start:end (step 1) of an extent `size` covers, by
// Python's rule: negative bounds count from the end, both clamp to [0, size], and an end before
// the start leaves the range empty.
struct SliceRange {
  int64_t begin = 0;
  int64_t end = 0;
};
SliceRange PythonSliceRange(int64_t start, int64_t end, int64_t size);

// The base of the layers that address a slice, reading pnnx's parameters: dim/start/end/step, or
// the lists dims/starts/ends/steps with selects (an index that drops its dimension; 2147483647
// where the entry is a slice). Python's rules: negative bounds count from the end, out-of-range
// bounds clamp (pnnx writes an open end as 2147483647), the step is positive; a select must be in
// range. Every entry names a dimension of the whole input (0 is the batch) as written in the
// indexing expression; slices of one dimension apply one after another.
class SlicingLayer : public Layer {
 protected:
  // Reads the slice parameters.
  explicit SlicingLayer(const LayerConfig& config);
  // For a layer whose bounds are not parameters (lumen.Slice reads them from operands).
  SlicingLayer(const LayerConfig& config, SliceBounds bounds)
      : Layer(config), bounds_(std::move(bounds)) {}
  // Resolves the layer's slice against an input of shape `input`; throws lumen::Error naming the
  // layer on a dimension or a select out of range, or a step below 1.
  SlicePlan MakePlan(const Shape& input) const { return MakePlan(input, bounds_); }
  // The same for the slice `bounds`, of the input as `input_view` lays it out (its shape is
  // `input`), or, when null, as the input's own storage does.
  SlicePlan MakePlan(const Shape& input, const SliceBounds& bounds,
                     const StorageView* input_view = nullptr) const;
  // The layer's slice parameters.
  const SliceBounds& bounds() const { return bounds_; }
  // Fails unless the lists have one entry per dimension named and every slice's step is positive.
  void CheckBounds(const SliceBounds& bounds) const;

 private:
  SliceBounds bounds_;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_LAYOUT_SLICE_PLAN_HPP_
