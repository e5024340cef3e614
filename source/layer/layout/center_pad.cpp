// lumen.CenterPad: pads or crops the last axes of a tensor to a target extent, splitting the
// difference between the two ends (the odd element at the end, or at the beginning). ONNX needs
// it where its pads depend on the input's extent, known only at plan time: auto_pad SAME with
// strides above 1 (Conv, MaxPool, AveragePool) and ConvTranspose's output_shape.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "layer/indexing/coordinates.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// Per session: for each output element (storage order), the input element it copies, or kFill.
struct CenterPadState : LayerState {
  static constexpr size_t kFill = std::numeric_limits<size_t>::max();
  std::vector<size_t> sources;
  size_t bytes() const override { return sources.size() * sizeof(size_t); }
};

}  // namespace

// The target extents are either given (size=(h,w): crop or pad to them) or ONNX's SAME rule for
// a sliding window (kernel_size, stride, dilation): the extent a window of that stride needs to
// take ceil(extent / stride) steps, never less than the input's. The difference splits into
// total / 2 at one end and the rest at the other: the rest at the end with upper=True (ONNX's
// SAME_UPPER), at the beginning otherwise. With grow_at_end=True a pad (not a crop) goes wholly at
// the end: ONNX ConvTranspose's output_shape past the full output is output_padding. Added
// elements hold `value` (default 0).
class CenterPad : public Layer {
 public:
  // Reads size, or kernel_size, stride and dilation (default 1); upper (default True);
  // grow_at_end (default False); value.
  explicit CenterPad(const LayerConfig& config)
      : Layer(config),
        upper_(config.BoolParam("upper", true)),
        grow_at_end_(config.BoolParam("grow_at_end", false)),
        value_(config.FloatParam("value", 0.0f)) {
    if (config.HasParam("size")) {
      sizes_ = config.IntArrayParam("size");
      for (int size : sizes_) {
        if (size < 0) Fail(Concat("size must not be negative, got ", size));
      }
      return;
    }
    kernel_ = config.IntArrayParam("kernel_size");
    stride_ = config.IntArrayParam("stride");
    dilation_ = config.HasParam("dilation") ? config.IntArrayParam("dilation")
                                            : std::vector<int>(kernel_.size(), 1);
    if (stride_.size() != kernel_.size() || dilation_.size() != kernel_.size()) {
      Fail("kernel_size, stride and dilation must have the same length");
    }
    for (size_t i = 0; i < kernel_.size(); ++i) {
      if (kernel_[i] < 1 || stride_[i] < 1 || dilation_[i] < 1) {
        Fail("kernel_size, stride and dilation must be at least 1");
      }
    }
  }

  // The input's shape with each of the last axes at its target extent.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    const Shape& input = input_shapes[0];
    const size_t count = Count();
    if (count == 0 || input.size() < count) {
      Fail(Concat("the input ", ShapeToString(input), " must have at least the ", count,
                  " axes to pad"));
    }
    Shape output = input;
    for (size_t i = 0; i < count; ++i) {
      const size_t axis = input.size() - count + i;
      output[axis] = Target(i, input[axis]);
    }
    return {output};
  }

  // Plans which input element each output element copies.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes& output_shapes,
                       const PrepareContext& /*context*/) const override {
    const Shape& input = input_shapes[0];
    const Shape& output = output_shapes[0];
    const size_t rank = input.size();
    const size_t first = rank - Count();
    // How far the input's origin lies inside the output along each padded axis (negative when
    // cropped).
    std::vector<int64_t> begins(rank, 0);
    for (size_t axis = first; axis < rank; ++axis) {
      const int64_t total = static_cast<int64_t>(output[axis]) - static_cast<int64_t>(input[axis]);
      // The smaller half of a pad or a crop (division truncates toward zero) goes at the
      // beginning with `upper`, the larger one otherwise.
      const int64_t half = total / 2;
      begins[axis] = grow_at_end_ && total > 0 ? 0 : upper_ ? half : total - half;
    }
    auto state = std::make_unique<CenterPadState>();
    state->sources.assign(ShapeElementCount(output), CenterPadState::kFill);
    const std::vector<size_t> input_strides = StorageStrides(input);
    const std::vector<size_t> output_strides = StorageStrides(output);
    ForEachCoordinate(output, [&](const Coordinates& position) {
      Coordinates source = position;
      for (size_t axis = first; axis < rank; ++axis) {
        const int64_t at = static_cast<int64_t>(position[axis]) - begins[axis];
        if (at < 0 || at >= static_cast<int64_t>(input[axis])) return;
        source[axis] = static_cast<size_t>(at);
      }
      state->sources[StorageOffsetOf(position, output_strides)] =
          StorageOffsetOf(source, input_strides);
    });
    return state;
  }

  // Copies or fills every output element.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const std::vector<size_t>& sources = context.state_as<CenterPadState>().sources;
    const float* input = inputs[0]->data();
    float* output = outputs[0]->data();
    for (size_t i = 0; i < sources.size(); ++i) {
      output[i] = sources[i] == CenterPadState::kFill ? value_ : input[sources[i]];
    }
  }

 private:
  // How many trailing axes are padded.
  size_t Count() const { return sizes_.empty() ? kernel_.size() : sizes_.size(); }

  // The target extent of padded axis `i` for an input extent `extent`.
  uint32_t Target(size_t i, uint32_t extent) const {
    if (!sizes_.empty()) return static_cast<uint32_t>(sizes_[i]);
    const uint64_t steps = (extent + static_cast<uint64_t>(stride_[i]) - 1) / stride_[i];
    if (steps == 0) return extent;
    const uint64_t needed = (steps - 1) * static_cast<uint64_t>(stride_[i]) +
                            static_cast<uint64_t>(kernel_[i] - 1) * dilation_[i] + 1;
    if (needed > std::numeric_limits<uint32_t>::max()) {
      Fail(Concat("the padded extent ", needed, " is too large"));
    }
    return static_cast<uint32_t>(std::max<uint64_t>(needed, extent));
  }

  std::vector<int> sizes_;
  std::vector<int> kernel_, stride_, dilation_;
  bool upper_ = true;
  bool grow_at_end_ = false;
  float value_ = 0.0f;
};

LUMEN_REGISTER_LAYER(CenterPad, "lumen.CenterPad");

}  // namespace lumen
