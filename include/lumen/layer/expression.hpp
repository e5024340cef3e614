// pnnx.Expression: element-wise arithmetic over the operator's inputs, with broadcasting.
#ifndef LUMEN_LAYER_EXPRESSION_HPP_
#define LUMEN_LAYER_EXPRESSION_HPP_

#include <memory>
#include <vector>

#include "lumen/layer/expression_parser.hpp"
#include "lumen/layer/layer.hpp"
#include "lumen/tensor/broadcast.hpp"

namespace lumen {

// Evaluates the parsed `expr` one function at a time over whole tensors.
//
// Prepare turns the expression tree into a list of steps, innermost calls first. Each step applies
// one function to one or two values (an input, a constant, or an earlier step's result) and writes
// a temporary tensor, or, for the last step, the output. Shapes are known before the first run, so
// each step's broadcasting is planned once and every temporary is allocated once. Constant
// sub-expressions are computed at Prepare.
class Expression : public Layer {
 public:
  // Parses the operator's `expr` parameter; throws lumen::Error on a malformed expression.
  explicit Expression(const RuntimeOperator& op);
  // Checks the inputs broadcast to the output shape and plans every step.
  void Prepare(const std::vector<Shape>& input_shapes,
               const std::vector<Shape>& output_shapes) override;
  // Runs the steps for each sample.
  void Forward(const std::vector<const TensorBatch*>& inputs,
               const std::vector<TensorBatch*>& outputs) override;

 private:
  // Where a value's elements live while one sample is evaluated.
  struct Value {
    enum class Source { kInput, kConstant, kTemporary, kOutput };
    Source source = Source::kConstant;
    int index = 0;          // input number (kInput) or temporary number (kTemporary)
    float constant = 0.0f;  // kConstant
    Shape shape;            // per-sample shape
  };
  // How the samples of an input are read for output sample b.
  enum class InputMode {
    kPerSample,    // input sample b (the input has the output's batch)
    kFirstSample,  // input sample 0 (the input's batch is 1 and broadcasts)
    kGathered,     // the input has no batch dimension: all its samples form one tensor
  };
  // One function applied over whole tensors.
  struct Step {
    ExpressionFunction function;
    int arguments[2] = {0, 0};  // value ids; the second is unused for unary functions
    int result = 0;             // value id
    std::unique_ptr<BroadcastWalk> walk;
  };

  // Appends the steps that compute `node` and returns the id of its value.
  int Compile(const ExpressionNode& node);
  // The address of a value's elements for output sample `sample`.
  const float* Address(int value, size_t sample, const std::vector<const TensorBatch*>& inputs,
                       const std::vector<TensorBatch*>& outputs) const;

  std::string text_;
  ExpressionNode root_;
  int input_count_ = 0;
  std::vector<Shape> input_sample_shapes_;
  std::vector<InputMode> input_modes_;
  std::vector<Tensor> gathered_inputs_;  // by input number; used for kGathered inputs
  std::vector<float> gathering_buffer_;  // row-major staging for gathering
  std::vector<Value> values_;
  std::vector<Step> steps_;
  std::vector<Tensor> temporaries_;
  int output_value_ = 0;  // the value id the last step writes: the output
};

}  // namespace lumen

#endif  // LUMEN_LAYER_EXPRESSION_HPP_
