// Layer: the interface every operator implementation follows.
//
// A layer is built once per model from its LayerConfig (parameters and weights are read and
// converted, weights packed, in the constructor) and is read-only from then on: one layer object
// serves every session of the model, from any number of threads at once. What depends on the
// input shapes or changes during a run lives in the session:
//
//   OutputShapes(inputs)          shape inference: the output shapes for these input shapes
//   Prepare(inputs, outputs, ..)  once per session and input shapes: choose an algorithm, size
//                                 scratch, return the state Forward needs (or null)
//   Forward(inputs, outputs, ..)  only computes, into outputs the session has allocated
//
// Errors caused by a model or its inputs (a bad parameter, a shape this layer cannot handle) are
// lumen::Error exceptions whose message names the layer (Fail does that).
#ifndef LUMEN_LAYER_LAYER_HPP_
#define LUMEN_LAYER_LAYER_HPP_

#include <memory>
#include <string>
#include <vector>

#include "base/compute_context.hpp"
#include "layer/layer_config.hpp"
#include "lumen/tensor.hpp"
#include "math/activation.hpp"

namespace lumen {

struct ExpressionNode;  // layer/arithmetic/expression_parser.hpp
struct StorageView;     // tensor/strided.hpp

// What one layer keeps per session for one set of input shapes (a chosen algorithm, buffers that
// live across a whole Forward). Layers derive their own.
class LayerState {
 public:
  virtual ~LayerState() = default;
  // Bytes this state holds, for the session's memory budget and report.
  virtual size_t bytes() const { return 0; }
};

// Short names for the operand lists of Layer's functions below, so that a layer declares each
// override on one line. An override's declaration leaves its parameters unnamed (they are Layer's,
// described here); its definition names the ones it uses.
using Shapes = std::vector<Shape>;
using InputTensors = std::vector<const Tensor*>;
using OutputTensors = std::vector<Tensor*>;
using StatePointer = std::unique_ptr<LayerState>;

// What Prepare may use: the thread count it plans for, and the session's scratch, to reserve
// what Forward will ask for (so that runs do not allocate).
struct PrepareContext {
  int threads = 1;
  Workspace* workspace = nullptr;
  // Per input: its values when the session knows them while planning (constants, shapes and what
  // is computed from them alone; see ShapeValueInputs), else null. Empty outside a session.
  InputTensors input_values;
};

// What Forward receives besides its operands: the session's threads and scratch, and the state
// Prepare returned for this layer.
struct ForwardContext {
  ComputeContext compute;
  LayerState* state = nullptr;

  // The layer's own state, as the type its Prepare made.
  template <typename State>
  State& state_as() const {
    return *static_cast<State*>(state);
  }
};

// Base class of every operator implementation (one subclass per op type).
class Layer {
 public:
  // Remembers how to name the operator in messages ("nn.Conv2d 'conv1'") and its operand counts.
  explicit Layer(const LayerConfig& config);
  // Not copyable: one layer serves every session of its model.
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;
  virtual ~Layer() = default;

  // Shape inference: the shapes of the outputs for inputs of these shapes. Throws lumen::Error
  // naming the layer, with the shapes involved, when it cannot compute them.
  virtual std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes) const = 0;

  // --- Shapes computed from values (ONNX's shape arithmetic: a Reshape to `x.size(0), -1`, Range,
  // ConstantOfShape). While it plans, a session knows the values of some operands: constants,
  // the shapes of operands (OutputsFromShapes), and what is computed from those alone. It computes
  // them then, once per set of input shapes, and those steps do not run again. ---

  // The inputs whose values (not only their shapes) this layer's output shapes depend on; each
  // must be known when the session plans. Empty for most layers.
  virtual std::vector<size_t> ShapeValueInputs() const { return {}; }
  // Shape inference for a layer with ShapeValueInputs: `input_values[i]` holds the values of input
  // i for those inputs (null for the others). By default, OutputShapes(input_shapes).
  virtual Shapes OutputShapesFromValues(const Shapes& input_shapes,
                                        const InputTensors& input_values) const;
  // If this layer's outputs depend on its inputs' shapes alone (Shape, Size): writes them into
  // `outputs` (allocated with the shapes OutputShapes gave) and returns true. False by default.
  virtual bool OutputsFromShapes(const Shapes& input_shapes, const OutputTensors& outputs) const;

  // Called by a session for each new set of input shapes, after OutputShapes: returns what Forward
  // needs for these shapes (null by default). May reserve scratch through the context.
  virtual std::unique_ptr<LayerState> Prepare(const std::vector<Shape>& input_shapes,
                                              const std::vector<Shape>& output_shapes,
                                              const PrepareContext& context) const;

  // True if, for inputs of these shapes, the one output holds the inputs' elements back to back in
  // memory order (a torch.cat whose dimensions before dim all have extent 1). A session may then
  // store each input inside the output, where its producer writes it, and Forward must expect an
  // input that already sits in its place (nothing to copy). False by default.
  virtual bool OutputIsInputsBackToBack(const Shapes& /*input_shapes*/) const { return false; }

  // Computes every output from the inputs. Outputs are allocated by the session with the shapes
  // OutputShapes gave; a layer writes into them and never resizes them. Must not allocate.
  virtual void Forward(const std::vector<const Tensor*>& inputs,
                       const std::vector<Tensor*>& outputs,
                       const ForwardContext& context) const = 0;

  // --- Hooks for the graph passes (passes/), asked while a model is built, before any session
  // exists. Each says what the layer computes in terms a pass can rely on, so that no pass keeps
  // a list of op types: a new layer takes part by answering them. ---

  // The activation this layer applies, if it does nothing but apply it element by element to its
  // one input; null otherwise.
  virtual const Activation* ElementwiseActivation() const { return nullptr; }
  // Asks this layer to apply `activation` to its own (single) output; true if it will, and the
  // model then drops the activation's layer. By default a layer declines.
  virtual bool FuseActivation(const Activation& activation);
  // True if this layer computes input 0 times input 1, element by element, and nothing else.
  virtual bool MultipliesItsTwoInputs() const { return false; }
  // If this layer does nothing but reorder the dimensions of its one input, of rank `rank`: the
  // input dimension each output dimension takes (Tensor.permute's dims). Empty otherwise.
  virtual std::vector<size_t> DimensionOrder(size_t /*rank*/) const { return {}; }
  // If this layer computes the same function of every pixel of a channels-last map, reading only
  // that pixel's channels (the last dimension of an (N, H, W, C) input): a new layer computing it
  // on the channels-first map (N, C, H, W). Null otherwise, and for elementwise activations, which
  // do not care about the layout.
  virtual std::unique_ptr<Layer> ChannelsFirstForm() const { return nullptr; }
  // If this layer computes nothing but the mean of its one input over `dims` (PyTorch dims,
  // negative ones counting from the end), keeping them as extent 1 or not: true, with those
  // filled in. False by default.
  virtual bool MeanOverDimensions(std::vector<int>* /*dims*/, bool* /*keepdim*/) const {
    return false;
  }
  // If this layer evaluates an element-wise expression of its inputs (@N is input N): the parsed
  // tree, so that a pass reads what it computes without reading text. Null by default.
  virtual const ExpressionNode* ElementwiseExpressionTree() const { return nullptr; }
  // If this layer's one output is a constant stored with the model (no inputs): its value. Null
  // by default.
  virtual const Tensor* ConstantValue() const { return nullptr; }
  // True if this layer computes torch.matmul(input 0, input 1) and nothing else (two inputs, one
  // output, the batch dimensions broadcast). False by default.
  virtual bool MultipliesMatrices() const { return false; }
  // If this layer computes nothing but the softmax of its one input along one dimension: true,
  // with that dimension (PyTorch's, negative counting from the end) in `*dim`. False by default.
  virtual bool SoftmaxAlong(int* /*dim*/) const { return false; }
  // Asks this layer to add `bias` (one value per feature of the last dimension of its single
  // output, as nn.Linear's bias) to its output; true if it will, and the model then drops the
  // addition's layer. By default a layer declines.
  virtual bool FuseBias(const std::vector<float>& /*bias*/) { return false; }
  // The op type of this layer's int8 form, for lumen_quantize (source/quantize/): a file node of
  // that type takes this node's parameters plus input_scale and input_zero_point, and its @weight
  // as int8 per output channel with @weight_scales (layer/quantized/quantized_weights.hpp). ""
  // (the default) when the layer has no int8 form or its configuration cannot take one.
  virtual std::string QuantizedType() const { return ""; }
  // True if this layer's one output is its input 0 seen another way, its elements moved but not
  // computed (a permute, a slice, a reshape): the view-chain pass joins runs of such layers into
  // one strided copy, which ViewThrough describes.
  virtual bool IsView() const { return false; }
  // For an IsView layer: turns `view`, where input 0's elements lie in some storage, into where
  // the output's lie, for these input shapes and the input values known when planning (as
  // OutputShapesFromValues gets them). False, `view` unchanged, when that is not one strided view.
  virtual bool ViewThrough(const Shapes& /*input_shapes*/, const InputTensors& /*input_values*/,
                           StorageView* /*view*/) const {
    return false;
  }

  // The op type this layer was built for ("nn.Conv2d"), and the operator's name in the graph.
  const std::string& type() const { return type_; }
  const std::string& name() const { return name_; }
  // "nn.Conv2d 'conv1'": the operator this layer was built from.
  const std::string& description() const { return description_; }

 protected:
  // Throws lumen::Error unless there are `inputs` inputs (and, at build time, the config's
  // outputs).
  void CheckInputCount(const std::vector<Shape>& input_shapes, size_t inputs) const;

  // Converts a PyTorch dimension (negative counts from the end) for a tensor of rank `rank` into
  // an index in [0, rank); throws lumen::Error naming the layer if it is out of range.
  size_t Axis(int dim, size_t rank) const;
  // Which of the `rank` axes the dimensions `dims` name (each converted as Axis does). A 0-d
  // tensor accepts 0 and -1, as PyTorch does, and has no axis to name. Fails on a dim named twice.
  std::vector<bool> NamedAxes(const std::vector<int>& dims, size_t rank) const;

  // The values of `values` (a shape, a count, a position: integers held as floats), each checked
  // to be a whole number; `role` names them in the error ("the shape (input 1)").
  std::vector<int64_t> IntegerValues(const Tensor& values, const std::string& role) const;
  // The extents a 1-D shape operand (input `input`, known while planning) holds, as
  // IntegerValues reads them; fails unless it is 1-D.
  std::vector<int64_t> ShapeOperandValues(const Shapes& input_shapes,
                                          const InputTensors& input_values, size_t input) const;
  // What OutputShapes says for a layer whose output shape is known only from the values of its
  // ShapeValueInputs: those reach OutputShapesFromValues, when a session plans.
  [[noreturn]] void FailWithoutValues() const;

  // The output shapes of a layer that maps the last dimension of its one input from
  // `in_features` to `out_features` (nn.Linear and lumen.QuantizedLinear); fails naming the layer
  // for another last extent, or more rows than a GEMM indexes with ints.
  Shapes LastDimensionMapped(const Shapes& input_shapes, int in_features, int out_features) const;

  // Throws lumen::Error prefixed with this layer's description.
  [[noreturn]] void Fail(const std::string& message) const;

 private:
  std::string type_;
  std::string name_;
  std::string description_;
};

// A weight that an nn.* module stores with the model (nn.PReLU's @weight, nn.LayerNorm's) and
// that its F.* function takes as a graph operand instead (F.prelu(x, w)), or an absent one. The
// layer reads it the same way in both cases.
class WeightParameter {
 public:
  // An absent weight.
  WeightParameter() = default;
  // The model's weight `key`, which must have `shape`, kept in a tensor's memory order (so that a
  // weight of rank 2 or more lines up with the trailing block of the input it scales).
  static WeightParameter FromAttribute(const LayerConfig& config, const std::string& key,
                                       const Shape& shape);
  // The operand at input `index`.
  static WeightParameter FromInput(size_t index);
  // For the F.* spellings: the operand playing `role` (`$weight=...`), absent when the parameter
  // `role` is None. Files without role names list weight and bias in that order after the input:
  // `next_input` is the position the next such operand would have, advanced past this one.
  static WeightParameter FromFunctionArgument(const LayerConfig& config, const std::string& role,
                                              size_t* next_input);

  // True unless absent.
  bool present() const { return input_ >= 0 || stored_.size() > 0; }
  // The operand's position, or -1 if the weight is not an operand.
  int input() const { return input_; }
  // The weight's shape for a run on `input_shapes` ((0) when absent).
  const Shape& shape(const Shapes& input_shapes) const;
  // The weight for a run on `inputs`: the stored one or the operand (an empty tensor when absent).
  const Tensor& tensor(const InputTensors& inputs) const;
  // Its values, in memory order (null when absent).
  const float* data(const InputTensors& inputs) const;

 private:
  Tensor stored_;
  int input_ = -1;
};

}  // namespace lumen

#endif  // LUMEN_LAYER_LAYER_HPP_
