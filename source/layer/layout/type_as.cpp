// Tensor.type_as(other): the input converted to other's element type (other's values unused).
#include <cmath>
#include <vector>

#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"

namespace lumen {
namespace {

// Every operand is float32 in Lumen, so the conversion is what Tensor.to does for the type the
// model file declares for `other`: a copy to a float type, truncation toward zero to an integer
// type, nonzero -> 1 to bool. Other types (float64, float16, the narrow and unsigned integers,
// complex) would need arithmetic Lumen does not model and are refused by name, as Tensor.to
// refuses them; so is an undeclared type, which cannot be told apart.
class TypeAs : public Layer {
 public:
  // Reads the type the file declares for the second operand.
  explicit TypeAs(const LayerConfig& config) : Layer(config) {
    if (config.input_count() != 2) Fail(Concat("expects 2 inputs, got ", config.input_count()));
    switch (config.InputType(1)) {
      case DataType::kFloat32:
        kind_ = Kind::kCopy;
        break;
      case DataType::kInt64:
      case DataType::kInt32:
        kind_ = Kind::kTruncate;
        break;
      case DataType::kBool:
        kind_ = Kind::kBool;
        break;
      default:
        Fail(
            "the other operand's type is not f32, i32, i64 or bool in the model file: Lumen "
            "computes in float32 and holds only those types exactly");
    }
  }

  // The first input's shape.
  Shapes OutputShapes(const Shapes& input_shapes) const override {
    CheckInputCount(input_shapes, 2);
    return {input_shapes[0]};
  }

  // Converts every element.
  void Forward(const InputTensors& inputs, const OutputTensors& outputs,
               const ForwardContext& /*context*/) const override {
    const float* source = inputs[0]->data();
    float* target = outputs[0]->data();
    for (size_t i = 0; i < inputs[0]->size(); ++i) {
      const float value = source[i];
      target[i] = kind_ == Kind::kCopy       ? value
                  : kind_ == Kind::kTruncate ? std::trunc(value)
                                             : (value != 0.0f ? 1.0f : 0.0f);  // NaN != 0
    }
  }

 private:
  // What the conversion does to a value.
  enum class Kind { kCopy, kTruncate, kBool };
  Kind kind_ = Kind::kCopy;
};

}  // namespace

LUMEN_REGISTER_LAYER(TypeAs, "Tensor.type_as");

}  // namespace lumen
