// MaskedChoice: the element-by-element choice between two values that torch.where and
// Tensor.masked_fill share: result = condition ? chosen : otherwise, each operand broadcast.
#ifndef LUMEN_LAYER_INDEXING_MASKED_CHOICE_HPP_
#define LUMEN_LAYER_INDEXING_MASKED_CHOICE_HPP_

#include <memory>
#include <string>
#include <vector>

#include "layer/layer.hpp"

namespace lumen {

// Where each value comes from: an input of the operator, or a number in its parameters (pnnx
// writes torch.where(c, x, 0.5)'s 0.5 as `other=0.5`).
struct ChoiceSource {
  int input = -1;  // the operand's position among the inputs, or -1 for the number
  float number = 0.0f;
};

// How an operator names one of its three values: the role its operand or parameter has
// ($mask=, other=0.5, ...), and the input it is when the graph names no roles.
struct ChoiceRole {
  const char* name;
  int default_input;
};

// A layer computing condition ? chosen : otherwise over the broadcast shape of its operands
// (a nonzero condition chooses; masks reach layers as floats, 1 for True). Subclasses say where
// the three come from and may constrain the output shape (masked_fill keeps its input's).
class MaskedChoice : public Layer {
 public:
  // The broadcast shape of every operand (CheckOutputShape may refuse it).
  Shapes OutputShapes(const Shapes&) const override;
  // Computes each operand's strides over the output.
  StatePointer Prepare(const Shapes&, const Shapes&, const PrepareContext&) const override;
  // Chooses every element.
  void Forward(const InputTensors&, const OutputTensors&, const ForwardContext&) const override;

 protected:
  // Reads where the condition and the two values come from, by their roles.
  MaskedChoice(const LayerConfig& config, ChoiceRole condition, ChoiceRole chosen,
               ChoiceRole otherwise);
  // Throws lumen::Error when the broadcast shape is not acceptable; by default any is.
  virtual void CheckOutputShape(const std::vector<Shape>& /*input_shapes*/,
                                const Shape& /*output*/) const {}

 private:
  ChoiceSource sources_[3];  // condition, chosen, otherwise
  size_t input_count_;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_INDEXING_MASKED_CHOICE_HPP_
