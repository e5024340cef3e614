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

}  // namespace

SlicingLayer::SlicingLayer(const LayerConfig& config) : Layer(config) {
  if (config.HasParam("dims")) {
    dims_ = config.IntArrayParam("dims");
    starts_ = config.IntArrayParam("starts");
    ends_ = config.IntArrayParam("ends");
    steps_ = config.HasParam("steps") ? config.IntArrayParam("steps")
                                      : std::vector<int>(dims_.size(), 1);
    selects_ = config.HasParam("selects") ? config.IntArrayParam("selects")
                                          : std::vector<int>(dims_.size(), kOpen);
  } else {
    dims_ = {config.IntParam("dim")};
    starts_ = {config.IntParam("start", 0)};
    ends_ = {config.IntParam("end", kOpen)};
    steps_ = {config.IntParam("step", 1)};
    selects_ = {kOpen};
  }
  if (starts_.size() != dims_.size() || ends_.size() != dims_.size() ||
      steps_.size() != dims_.size()) {
    Fail("dims, starts, ends and steps must have the same length");
  }
  if (selects_.size() != dims_.size()) Fail("selects must have the length of dims");
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (selects_[i] == kOpen && steps_[i] < 1) {
      Fail(Concat("step must be positive, got ", steps_[i]));
    }
  }
}

SlicePlan SlicingLayer::MakePlan(const Shape& input) const {
  SlicePlan plan;
  plan.shape = input;
  const std::vector<size_t> strides = StorageStrides(input);
  plan.strides.assign(strides.begin(), strides.end());
  std::vector<bool> selected(input.size(), false);
  for (size_t i = 0; i < dims_.size(); ++i) {
    const size_t axis = Axis(dims_[i], input.size());
    const int64_t size = plan.shape[axis];
    if (selects_[i] != kOpen) {  // an index: the dimension goes
      const int64_t index = selects_[i] < 0 ? selects_[i] + size : selects_[i];
      if (index < 0 || index >= size || selected[axis]) {
        Fail(Concat("index ", selects_[i], " is out of range for dim ", dims_[i], " of extent ",
                    size, " (input ", ShapeToString(input), ")"));
      }
      plan.offset += static_cast<std::ptrdiff_t>(index) * plan.strides[axis];
      selected[axis] = true;
      continue;
    }
    const auto resolve = [size](int64_t index) {  // Python's rule for slice bounds
      if (index < 0) index += size;
      return std::clamp<int64_t>(index, 0, size);
    };
    const int64_t start = resolve(starts_[i]);
    const int64_t end = std::max(resolve(ends_[i]), start);
    plan.shape[axis] = static_cast<uint32_t>((end - start + steps_[i] - 1) / steps_[i]);
    plan.offset += static_cast<std::ptrdiff_t>(start) * plan.strides[axis];
    plan.strides[axis] *= steps_[i];
  }
  for (size_t axis = input.size(); axis-- > 0;) {
    if (!selected[axis]) continue;
    plan.shape.erase(plan.shape.begin() + static_cast<std::ptrdiff_t>(axis));
    plan.strides.erase(plan.strides.begin() + static_cast<std::ptrdiff_t>(axis));
  }
  return plan;
}

}  // namespace lumen
