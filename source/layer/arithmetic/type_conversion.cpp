// Tensor.to: a change of element type, for the types whose values float32 holds exactly.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "base/thread_pool.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// Below this many elements the conversion runs on one thread.
constexpr size_t kParallelElements = 1 << 15;

}  // namespace

// Every operand reaches a layer as float32, whatever type the model declares (an index output is
// float32 holding whole numbers). So converting to torch.float is a copy; to torch.long or
// torch.int, PyTorch truncates toward zero, and the result is a whole number that float32 holds
// exactly; to torch.bool, nonzero (NaN included) becomes 1. Other targets (double, half, the
// narrow and unsigned integers, complex) would need arithmetic or wrap-around Lumen does not
// model, and are refused by name. A device move (dtype None) is a copy.
class TypeConversion : public Layer {
 public:
  // Reads dtype and refuses the types Lumen cannot honestly hold.
  explicit TypeConversion(const LayerConfig& config) : Layer(config) {
    if (!config.HasParam("dtype") || config.Param("dtype").IsNone()) return;
    const std::string dtype = config.StringParam("dtype");
    if (dtype == "torch.float" || dtype == "torch.float32") {
      kind_ = Kind::kCopy;
    } else if (dtype == "torch.long" || dtype == "torch.int64" || dtype == "torch.int" ||
               dtype == "torch.int32") {
      kind_ = Kind::kTruncate;
    } else if (dtype == "torch.bool") {
      kind_ = Kind::kBool;
    } else {
      Fail(Concat("conversion to ", dtype,
                  " is not supported: Lumen computes in float32, which holds exactly only the "
                  "values of torch.float, torch.int, torch.long and torch.bool"));
    }
  }

  // The input's shape.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 1);
    return {input_shapes[0]};
  }

  // Converts every element.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& context) const override {
    const float* source = inputs[0]->data();
    float* target = outputs[0]->data();
    const size_t count = inputs[0]->size();
    constexpr size_t kChunk = 1 << 14;
    ParallelFor(
        context.compute.pool, static_cast<std::ptrdiff_t>((count + kChunk - 1) / kChunk),
        [&](std::ptrdiff_t chunk) {
          const size_t begin = static_cast<size_t>(chunk) * kChunk;
          const size_t end = std::min(count, begin + kChunk);
          for (size_t i = begin; i < end; ++i) {
            const float value = source[i];
            switch (kind_) {
              case Kind::kCopy:
                target[i] = value;
                break;
              case Kind::kTruncate:
                target[i] = std::trunc(value);
                break;
              case Kind::kBool:
                target[i] = value != 0.0f ? 1.0f : 0.0f;  // NaN != 0
                break;
            }
          }
        },
        Schedule::kStatic, count >= kParallelElements);
  }

 private:
  // What the conversion does to a value.
  enum class Kind { kCopy, kTruncate, kBool };
  Kind kind_ = Kind::kCopy;
};

LUMEN_REGISTER_LAYER(TypeConversion, "Tensor.to");

}  // namespace lumen
