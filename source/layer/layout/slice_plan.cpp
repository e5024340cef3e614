// SlicingLayer: resolving pnnx's slice parameters against a shape.
#include "layer/layout/slice_plan.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// What pnnx writes for "no select here" and for an open end.
constexpr int kOpen = std::numeric_limits<int>::max();
static_assert(SliceBounds::kNoSelect == kOpen, "pnnx's open select is SliceBounds' kNoSelect");

std::vector<int64_t> Widened(const std::vector<int>& values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

}  // namespace

SlicingLayer::SlicingLayer(const LayerConfig& config) : Layer(config) {
  SliceBounds& bounds = bounds_;
  if (config.HasParam("dims")) {
    bounds.dims = Widened(config.IntArrayParam("dims"));
    bounds.starts = Widened(config.IntArrayParam("starts"));
    bounds.ends = Widened(config.IntArrayParam("ends"));
    bounds.steps = config.HasParam("steps") ? Widened(config.IntArrayParam("steps"))
                                            : std::vector<int64_t>(bounds.dims.size(), 1);
    bounds.selects = config.HasParam("selects") ? Widened(config.IntArrayParam("selects"))
                                                : std::vector<int64_t>(bounds.dims.size(), kOpen);
  } else {
    bounds.dims = {config.IntParam("dim")};
    bounds.starts = {config.IntParam("start", 0)};
    bounds.ends = {config.IntParam("end", kOpen)};
    bounds.steps = {config.IntParam("step", 1)};
    bounds.selects = {kOpen};
  }
  CheckBounds(bounds);
}

void SlicingLayer::CheckBounds(const SliceBounds& bounds) const {
  const size_t count = bounds.dims.size();
  if (bounds.starts.size() != count || bounds.ends.size() != count ||
      bounds.steps.size() != count) {
    Fail("dims, starts, ends and steps must have the same length");
  }
  if (bounds.selects.size() != count) Fail("selects must have the length of dims");
  for (size_t i = 0; i < count; ++i) {
    if (bounds.selects[i] == kOpen && bounds.steps[i] < 1) {
      Fail(Concat("step must be positive, got ", bounds.steps[i]));
    }
  }
}

SliceRange PythonSliceRange(int64_t start, int64_t end, int64_t size) {
  const auto resolve = [size](int64_t index) {
    if (index < 0) index += size;
    return std::clamp<int64_t>(index, 0, size);
  };
  const int64_t begin = resolve(start);
  return {begin, std::max(resolve(end), begin)};
}

SlicePlan SlicingLayer::MakePlan(const Shape& input, const SliceBounds& bounds,
                                 const StorageView* input_view) const {
  CheckBounds(bounds);
  SlicePlan plan = input_view != nullptr ? *input_view : WholeTensorView(input);
  plan.shape = input;
  std::vector<bool> selected(input.size(), false);
  for (size_t i = 0; i < bounds.dims.size(); ++i) {
    const size_t axis = Axis(
        static_cast<int>(std::clamp<int64_t>(bounds.dims[i], INT32_MIN, INT32_MAX)), input.size());
    const int64_t size = plan.shape[axis];
    if (bounds.selects[i] != kOpen) {  // an index: the dimension goes
      const int64_t index = bounds.selects[i] < 0 ? bounds.selects[i] + size : bounds.selects[i];
      if (index < 0 || index >= size || selected[axis]) {
        Fail(Concat("index ", bounds.selects[i], " is out of range for dim ", bounds.dims[i],
                    " of extent ", size, " (input ", ShapeToString(input), ")"));
      }
      plan.offset += static_cast<std::ptrdiff_t>(index) * plan.strides[axis];
      selected[axis] = true;
      continue;
    }
    const SliceRange range = PythonSliceRange(bounds.starts[i], bounds.ends[i], size);
    plan.shape[axis] =
        static_cast<uint32_t>((range.end - range.begin + bounds.steps[i] - 1) / bounds.steps[i]);
    plan.offset += static_cast<std::ptrdiff_t>(range.begin) * plan.strides[axis];
    plan.strides[axis] *= bounds.steps[i];
  }
  for (size_t axis = input.size(); axis-- > 0;) {
    if (!selected[axis]) continue;
    plan.shape.erase(plan.shape.begin() + static_cast<std::ptrdiff_t>(axis));
    plan.strides.erase(plan.strides.begin() + static_cast<std::ptrdiff_t>(axis));
  }
  return plan;
}

}  // namespace lumen
