// GraphBuilder: turns a parsed ONNX ModelProto into a Lumen Graph. Internal to source/onnx/:
// onnx_graph_builder.cpp holds the walk over the graph (values, order, outputs),
// onnx_operators.cpp the table of which mapper each ONNX op type goes to, and
// operators/<family>.cpp the mappers, by the same families as source/layer/.
#ifndef LUMEN_SOURCE_ONNX_ONNX_GRAPH_BUILDER_HPP_
#define LUMEN_SOURCE_ONNX_ONNX_GRAPH_BUILDER_HPP_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "graph/graph.hpp"
#include "onnx.pb.h"
#include "onnx/constant_folding.hpp"
#include "onnx_tensor.hpp"

namespace lumen {
namespace onnx {

// Builds one Graph from one model; used once.
class GraphBuilder {
 public:
  // `source` names the model in messages; external data is read only inside `model_folder`.
  GraphBuilder(const lumen_onnx_proto::ModelProto& model, std::string source,
               std::string model_folder);

  // Reads the whole model; throws lumen::Error on anything it cannot represent.
  Graph Build();

  // The op types the reader maps onto layers, or evaluates when their inputs are known.
  static const std::set<std::string>& SupportedOps();

 private:
  // --- the walk (onnx_graph_builder.cpp) -------------------------------------------------------
  void ReadOpset();
  void ReadDeclaredShapes();
  void ReadInitializersAndInputs();
  // The nodes in an order where every value is produced before it is read; throws on a missing
  // input, a value produced twice, or a cycle.
  std::vector<size_t> OrderNodes() const;
  void RefuseUnsupportedOps() const;
  void ConvertNode(size_t index);

  // --- op versions (onnx_opsets.cpp) -----------------------------------------------------------
  // The version of `op` a model at `opset` uses (the newest not above it); 0 if ONNX has none.
  static int OpVersion(const std::string& op, int opset);
  // Fail()s unless the current node's op, in the version the model's opset gives it, is one its
  // mapper implements (and its attributes are ones that version has).
  void CheckOpVersion() const;
  // The version of the current node's op.
  int NodeOpVersion() const { return OpVersion(node_->op_type(), opset_); }
  // Remembers which outputs of the current node hold integers (shapes, indices, Cast to an integer
  // type): Lumen holds them as floats, and Div or Cast must then round as integers do.
  void NoteIntegerOutputs();
  void ResolveOutputs();

  // --- helpers for the op mappers --------------------------------------------------------------
  // "model.onnx: node 'conv1' (Conv, opset 13)": how messages name the current node.
  std::string Where() const;
  [[noreturn]] void Fail(const std::string& message) const;
  const lumen_onnx_proto::NodeProto& node() const { return *node_; }
  // Number of inputs the node names (omitted optional inputs count, as empty names).
  size_t InputCount() const { return static_cast<size_t>(node_->input_size()); }
  // True if input `index` is named (not an omitted optional input).
  bool HasInput(size_t index) const;
  // True if input `index` is known when loading.
  bool IsConstantInput(size_t index) const;
  // The known value of input `index`; Fail()s naming `role` if it is only known at run time.
  const ConstantTensor& ConstantInput(size_t index, const std::string& role) const;
  // The Lumen operand holding input `index` at run time; a known input becomes a pnnx.Attribute
  // node (made once per value).
  std::string RuntimeInput(size_t index);
  // The run-time operands of inputs 0 to count - 1, in order: the inputs of a node that reads the
  // ONNX node's first `count` inputs as they are.
  std::vector<std::string> RuntimeInputs(size_t count);
  // The dims the file declares (or the reader knows) for input `index`; empty if unknown.
  // Unknown extents are -1.
  std::vector<int64_t> InputDims(size_t index) const;
  // True if input `index` holds integers (an integer constant, or a value NoteIntegerOutputs
  // marked).
  bool IsIntegerInput(size_t index) const;
  // The rank of input `index`, or -1 when nothing says.
  int InputRank(size_t index) const;
  // The same as InputRank, Fail()ing with `why` when it is unknown.
  int RequireInputRank(size_t index, const std::string& why) const;
  // Typed attribute getters naming this node in errors.
  int64_t Int(const std::string& name, int64_t fallback) const;
  float Float(const std::string& name, float fallback) const;
  std::string String(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> Ints(const std::string& name, const std::vector<int64_t>& fallback) const;

  // A new node of `type` for the current ONNX node, reading `inputs`; its outputs are `outputs`
  // (new operands). Fill params and attributes, then Emit() it.
  Node MakeNode(const std::string& type, const std::vector<std::string>& inputs,
                const std::vector<std::string>& outputs);
  // Adds the node to the graph and its outputs to the operands.
  void Emit(Node node);
  // Emits the node that computes output 0 (OutputName(0)) and makes it that output at run time:
  // how a mapper ends whose last node writes the ONNX node's one result.
  void EmitOutput(Node node);
  // The name of a new operand for an intermediate result of the current node.
  std::string NewOperandName(const std::string& base);
  // Output `index` of the current node is, at run time, the operand `operand`.
  void SetRuntimeOutput(size_t index, const std::string& operand);
  // The ONNX name of output `index` of the current node (the usual operand for it).
  const std::string& OutputName(size_t index) const;
  // Emits a pnnx.Expression over the current node's inputs `inputs`, whose text uses `{k}` for
  // the k-th of them (scalars known at load time are written inline as numbers), into output 0.
  void EmitExpression(const std::string& pattern, const std::vector<size_t>& inputs);
  // An expression of an already made operand, into operand `output`.
  void EmitExpressionOf(const std::string& expression, const std::vector<std::string>& inputs,
                        const std::string& output);
  // A number as the expression language reads it, with every bit of a float.
  static std::string NumberText(double value);
  // An int64 from the file as an int parameter, clamped (slice bounds such as INT64_MAX mean "to
  // the end", which INT_MAX means as well).
  static int ClampToInt(int64_t value);
  // Every value clamped as ClampToInt does.
  static std::vector<int> ToInts(const std::vector<int64_t>& values);

  // --- the op mappers --------------------------------------------------------------------------
  // onnx_operators.cpp: maps the current node (whose inputs are not all known) onto Lumen nodes,
  // through the mapper Mappers() names for its op type.
  void MapOperator();
  using Mapper = void (GraphBuilder::*)();
  // Op type -> the member function that maps it.
  static const std::map<std::string, Mapper>& Mappers();
  // Identity and Dropout: at run time the output is the input.
  void MapPassThrough();

  // operators/activation.cpp
  // Op types that become one activation layer with no parameters, and that layer's type.
  static const std::map<std::string, std::string>& PlainActivations();
  void MapPlainActivation();
  void MapClip();
  void MapLeakyRelu();
  void MapElu();
  void MapHardSigmoid();
  void MapPRelu();
  // Softmax, LogSoftmax and Hardmax.
  void MapSoftmax();
  void MapThresholdedRelu();
  void MapSelu();
  void MapCelu();
  void MapShrink();

  // operators/arithmetic.cpp: element-wise expressions, reductions and Cast.
  // Unary element-wise op types and the expression each is ({0} the input).
  static const std::map<std::string, std::string>& UnaryExpressions();
  // Binary (and variadic) element-wise op types and their expression functions.
  static const std::map<std::string, std::string>& BinaryFunctions();
  void MapUnaryExpression();
  void MapElementwise();
  void MapCast();
  // The Reduce* op types MapReduction maps.
  static std::vector<std::string> ReduceOps();
  void MapReduction();
  void MapArgExtremum();
  void MapMod();
  void MapMean();
  void MapCumSum();
  void MapTopK();

  // operators/convolution.cpp
  // The dims of input `index` (a weight given as a graph input), every extent declared; Fail()s
  // naming `role` otherwise.
  std::vector<int64_t> KnownInputDims(size_t index, const std::string& role) const;
  void MapConvolution();
  void MapTransposedConvolution();
  // The (begins..., ends...) pads of a sliding window over the last kernel.size() axes, from the
  // node's pads or auto_pad (SAME_UPPER / SAME_LOWER with strides of 1, whose pads do not depend
  // on the input's extent). Empty for SAME with a larger stride: EmitSamePad pads at plan time.
  std::vector<int64_t> WindowPads(const std::vector<int64_t>& kernel,
                                  const std::vector<int64_t>& strides,
                                  const std::vector<int64_t>& dilations) const;
  // `input` padded with `value` as the node's auto_pad SAME_UPPER / SAME_LOWER says for this
  // window, through lumen.CenterPad (the pads depend on the extent): the result's operand.
  std::string EmitSamePad(const std::string& input, const std::vector<int64_t>& kernel,
                          const std::vector<int64_t>& strides,
                          const std::vector<int64_t>& dilations, float value);
  // `input` padded with `value` by `pads` (begins..., ends...) on its last pads.size() / 2 axes:
  // the operand holding the result.
  std::string EmitWindowPad(const std::string& input, const std::vector<int64_t>& pads,
                            float value);

  // operators/indexing.cpp
  void MapGather();
  void MapGatherElements();
  void MapScatterElements();
  void MapGatherNd();
  void MapScatterNd();
  // The reduction attribute of ScatterElements and ScatterND (none, add, mul, max, min) as
  // torch.scatter_reduce names it (sum, prod, amax, amin), empty for none; Fail()s on another.
  std::string ScatterReduceName() const;
  void MapWhere();

  // operators/selection.cpp: ops that keep or reorder elements along an axis by a count or mask
  void MapCompress();
  void MapReverseSequence();

  // operators/layout.cpp: ops that move or copy elements.
  // torch.flatten of dimensions start..end of `input` into the new operand `output`.
  void EmitFlatten(const std::string& input, int start, int end, const std::string& output);
  void MapFlatten();
  void MapReshape();
  void MapTranspose();
  void MapSqueeze();
  void MapUnsqueeze();
  void MapSlice();
  // Tensor.slice of input 0 with bounds known when loading, into output 0.
  void EmitSlice(const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                 const std::vector<int64_t>& axes, const std::vector<int64_t>& steps);
  void MapSplit();
  void MapConcat();
  void MapExpand();
  void MapPad();
  // Pad's pads over every axis (a begin per axis, then an end per axis) from the ones for the
  // axes of its axes input (opset 18), when it has one.
  std::vector<int64_t> PadsOverEveryAxis(const std::vector<int64_t>& pads);
  void MapTile();
  void MapDepthToSpace();
  void MapSpaceToDepth();

  // operators/linear.cpp
  void MapGemm();
  void MapMatMul();
  void MapEinsum();
  void MapDeterminant();

  // operators/loss.cpp: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
  void MapLoss();

  // operators/quantization.cpp
  // The node's x, scale and (when given) zero point, the latter two shaped to broadcast along
  // `axis` when the scale is a vector.
  std::vector<std::string> QuantizationOperands();
  void MapDequantizeLinear();
  void MapQuantizeLinear();

  // operators/normalization.cpp
  // What the normalisations written op by op compute from `input` over `dims` (kept as extent
  // 1): its mean, `input` minus it, and the mean of that difference squared (the biased variance).
  struct CenteredStatistics {
    std::string mean;
    std::string centered;
    std::string variance;
  };
  CenteredStatistics EmitCenteredStatistics(const std::string& input, const std::vector<int>& dims);
  // `operand` with `count` trailing axes of extent 1 (torch.unsqueeze at -1), so that a
  // per-channel vector broadcasts against the axes after its own; the last one is named
  // `result_name` if that is not empty. Also used by operators/quantization.cpp.
  std::string EmitTrailingUnitAxes(const std::string& operand, int64_t count,
                                   const std::string& result_name);
  // A node of `type` (F.batch_norm, nn.InstanceNorm2d, ...) computing output 0 from `inputs`, its
  // eps the node's epsilon (ONNX's default 1e-5, as PyTorch's): what every mapping below shares.
  Node MakeNormalizationNode(const std::string& type, const std::vector<std::string>& inputs);
  void MapBatchNormalization();
  // BatchNormalization with training_mode=1: the batch's own statistics, and the updated running
  // ones as outputs 1 and 2.
  void MapTrainingBatchNormalization();
  void MapLayerNormalization();
  void MapInstanceNormalization();
  void MapMeanVarianceNormalization();

  // operators/pooling.cpp
  void MapPooling();
  // GlobalAveragePool and GlobalMaxPool.
  void MapGlobalPool();
  void MapLocalResponseNorm();

  // operators/recurrent.cpp: LSTM, GRU and RNN.
  void MapRecurrent();
  // The layer's run-time inputs: X, then the initial states (state_count of them) unless they
  // are known zeros.
  std::vector<std::string> RecurrentInputs(size_t state_count);
  // The layer's output `y`, (L, N, D*H), as ONNX's Y `y_onnx`, (L, D, N, H).
  void EmitOnnxRecurrentOutput(const std::string& y, const std::string& y_onnx, int64_t directions);

  // operators/shape.cpp: shape arithmetic on run-time values, computed when a session plans.
  void MapShape();
  void MapSize();
  void MapConstantOfShape();
  void MapRange();

  // operators/sampling.cpp
  void MapResize();
  // Upsample (opsets 7 to 10) and Resize at opset 10: nearest resizing by scale factors.
  void MapUpsample();
  // nn.Upsample's scale_factor from ONNX's scales (one per axis of (N,C,H,W)).
  void SetScaleFactors(const ConstantTensor& scales, Node* node) const;
  void MapGridSample();

  const lumen_onnx_proto::ModelProto& model_;
  const lumen_onnx_proto::GraphProto& graph_proto_;
  std::string source_;
  std::string model_folder_;
  int opset_ = 0;

  Graph graph_;
  std::set<std::string> operand_names_;
  // Values known when loading, by ONNX name.
  std::map<std::string, ConstantTensor> constants_;
  // Values known only at run time: ONNX name -> the Lumen operand holding it.
  std::map<std::string, std::string> runtime_;
  // Dims the file declares for values (graph inputs, outputs, value_info); -1 unknown extents.
  std::map<std::string, std::vector<int64_t>> declared_dims_;
  // pnnx.Attribute operands already made for known values, by ONNX name.
  std::map<std::string, std::string> materialized_;
  std::set<std::string> graph_inputs_;
  // Run-time values that hold integers, by ONNX name (see NoteIntegerOutputs).
  std::set<std::string> integer_values_;

  // The node being converted.
  const lumen_onnx_proto::NodeProto* node_ = nullptr;
  size_t node_index_ = 0;
  std::string node_name_;
  int nodes_made_ = 0;  // Lumen nodes made for the current ONNX node
};

}  // namespace onnx
}  // namespace lumen

#endif  // LUMEN_SOURCE_ONNX_ONNX_GRAPH_BUILDER_HPP_
