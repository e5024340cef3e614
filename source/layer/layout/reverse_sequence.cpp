// lumen.ReverseSequence (ONNX's ReverseSequence, tf.reverse_sequence): for each entry b along
// batch_dim, the first lengths[b] steps along time_dim in reverse order, the steps after them
// unchanged. Lengths are input 1, one per batch entry (integers held as floats).
#include <cmath>
#include <cstddef>
#include <memory>
#include <vector>

#include "layer/layer.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "tensor/strided.hpp"

namespace lumen {
namespace {

// Per session: the memory strides of the input's dimensions.
struct ReverseSequenceState : LayerState {
  std::vector<size_t> strides;
};

}  // namespace

// Inputs: the tensor (rank at least 2) and the lengths (batch extent); output: the tensor's shape.
class ReverseSequence : public Layer {
 public:
  // Reads batch_dim and time_dim (two different dimensions).
  explicit ReverseSequence(const LayerConfig& config)
      : Layer(config),
        batch_dim_(config.IntParam("batch_dim", 1)),
        time_dim_(config.IntParam("time_dim", 0)) {}

  // The input's shape, after checking the lengths' shape.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 2);
    const Shape& input = input_shapes[0];
    const size_t batch = Axis(batch_dim_, input.size());
    if (batch == Axis(time_dim_, input.size())) Fail("batch_dim and time_dim must differ");
    if (input_shapes[1] != Shape{input[batch]}) {
      Fail(Concat("the lengths must be a vector of one per batch entry, (", input[batch], "), got ",
                  ShapeToString(input_shapes[1])));
    }
    return {input};
  }

  // Plans the memory strides of the input's dimensions.
  StatePointer Prepare(const Shapes& input_shapes, const Shapes&,
                       const PrepareContext&) const override {
    auto state = std::make_unique<ReverseSequenceState>();
    state->strides = StorageStrides(input_shapes[0]);
    return state;
  }

  // Copies every element from its step, reversed within its entry's length.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const Shape& shape = inputs[0]->shape();
    const size_t rank = shape.size();
    const size_t batch = Axis(batch_dim_, rank);
    const size_t time = Axis(time_dim_, rank);
    const float* lengths = inputs[1]->data();  // a vector: its memory is in order
    for (size_t entry = 0; entry < inputs[1]->size(); ++entry) {
      const float length = lengths[entry];
      if (!(length >= 0.0f && length <= static_cast<float>(shape[time])) ||
          length != std::floor(length)) {
        Fail(Concat("length ", length, " is not a whole number in [0, ", shape[time],
                    "], the time extent"));
      }
    }
    const std::vector<size_t>& strides = context.state_as<ReverseSequenceState>().strides;
    const float* source = inputs[0]->data();
    float* target = outputs[0]->data();
    // Walk every element by its logical index, counting in row-major order.
    uint32_t index[kMaxRank] = {};
    for (size_t element = 0; element < inputs[0]->size(); ++element) {
      const int64_t length = static_cast<int64_t>(lengths[index[batch]]);
      const int64_t step = index[time];
      const int64_t from = step < length ? length - 1 - step : step;
      size_t offset = 0;
      for (size_t d = 0; d < rank; ++d) offset += index[d] * strides[d];
      target[offset] = source[static_cast<std::ptrdiff_t>(offset) +
                              (from - step) * static_cast<std::ptrdiff_t>(strides[time])];
      for (size_t d = rank; d-- > 0;) {
        if (++index[d] < shape[d]) break;
        index[d] = 0;
      }
    }
  }

 private:
  int batch_dim_ = 1;
  int time_dim_ = 0;
};

LUMEN_REGISTER_LAYER(ReverseSequence, "lumen.ReverseSequence");

}  // namespace lumen
