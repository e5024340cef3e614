// Which mapper each ONNX op type goes to, in one table: the mappers themselves are in
// operators/<family>.cpp, by the same families as source/layer/. Each maps an op onto the Lumen
// node type with the same semantics: the same layers, with their fast algorithms, run a model
// whichever format it came from.
#include <algorithm>
#include <climits>
#include <map>

#include "lumen/error.hpp"
#include "onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

const std::map<std::string, GraphBuilder::Mapper>& GraphBuilder::Mappers() {
  static const std::map<std::string, Mapper> mappers = [] {
    std::map<std::string, Mapper> table = {
        // no node: the output is the input
        {"Identity", &GraphBuilder::MapPassThrough},
        {"Dropout", &GraphBuilder::MapPassThrough},
        // activation
        {"Clip", &GraphBuilder::MapClip},
        {"LeakyRelu", &GraphBuilder::MapLeakyRelu},
        {"Elu", &GraphBuilder::MapElu},
        {"HardSigmoid", &GraphBuilder::MapHardSigmoid},
        {"PRelu", &GraphBuilder::MapPRelu},
        {"Softmax", &GraphBuilder::MapSoftmax},
        {"LogSoftmax", &GraphBuilder::MapSoftmax},
        {"Hardmax", &GraphBuilder::MapSoftmax},
        {"ThresholdedRelu", &GraphBuilder::MapThresholdedRelu},
        {"Selu", &GraphBuilder::MapSelu},
        {"Celu", &GraphBuilder::MapCelu},
        {"Shrink", &GraphBuilder::MapShrink},
        // arithmetic
        {"Cast", &GraphBuilder::MapCast},
        {"ArgMax", &GraphBuilder::MapArgExtremum},
        {"ArgMin", &GraphBuilder::MapArgExtremum},
        {"Mod", &GraphBuilder::MapMod},
        {"Mean", &GraphBuilder::MapMean},
        {"CumSum", &GraphBuilder::MapCumSum},
        {"TopK", &GraphBuilder::MapTopK},
        // convolution
        {"Conv", &GraphBuilder::MapConvolution},
        {"ConvTranspose", &GraphBuilder::MapTransposedConvolution},
        // indexing
        {"Gather", &GraphBuilder::MapGather},
        {"GatherElements", &GraphBuilder::MapGatherElements},
        {"ScatterElements", &GraphBuilder::MapScatterElements},
        {"Scatter", &GraphBuilder::MapScatterElements},  // its name before opset 11
        {"GatherND", &GraphBuilder::MapGatherNd},
        {"ScatterND", &GraphBuilder::MapScatterNd},
        {"Where", &GraphBuilder::MapWhere},
        {"Compress", &GraphBuilder::MapCompress},
        // layout
        {"Flatten", &GraphBuilder::MapFlatten},
        {"Reshape", &GraphBuilder::MapReshape},
        {"Transpose", &GraphBuilder::MapTranspose},
        {"Squeeze", &GraphBuilder::MapSqueeze},
        {"Unsqueeze", &GraphBuilder::MapUnsqueeze},
        {"Slice", &GraphBuilder::MapSlice},
        {"Split", &GraphBuilder::MapSplit},
        {"Concat", &GraphBuilder::MapConcat},
        {"Expand", &GraphBuilder::MapExpand},
        {"Pad", &GraphBuilder::MapPad},
        {"Tile", &GraphBuilder::MapTile},
        {"DepthToSpace", &GraphBuilder::MapDepthToSpace},
        {"SpaceToDepth", &GraphBuilder::MapSpaceToDepth},
        {"ReverseSequence", &GraphBuilder::MapReverseSequence},
        // linear
        {"Gemm", &GraphBuilder::MapGemm},
        {"MatMul", &GraphBuilder::MapMatMul},
        {"Einsum", &GraphBuilder::MapEinsum},
        {"Det", &GraphBuilder::MapDeterminant},
        // quantization
        {"DequantizeLinear", &GraphBuilder::MapDequantizeLinear},
        {"QuantizeLinear", &GraphBuilder::MapQuantizeLinear},
        // loss
        {"NegativeLogLikelihoodLoss", &GraphBuilder::MapLoss},
        {"SoftmaxCrossEntropyLoss", &GraphBuilder::MapLoss},
        // normalization
        {"BatchNormalization", &GraphBuilder::MapBatchNormalization},
        {"LayerNormalization", &GraphBuilder::MapLayerNormalization},
        {"InstanceNormalization", &GraphBuilder::MapInstanceNormalization},
        {"MeanVarianceNormalization", &GraphBuilder::MapMeanVarianceNormalization},
        // pooling
        {"MaxPool", &GraphBuilder::MapPooling},
        {"AveragePool", &GraphBuilder::MapPooling},
        {"GlobalAveragePool", &GraphBuilder::MapGlobalPool},
        {"GlobalMaxPool", &GraphBuilder::MapGlobalPool},
        {"LRN", &GraphBuilder::MapLocalResponseNorm},
        // recurrent
        {"LSTM", &GraphBuilder::MapRecurrent},
        {"GRU", &GraphBuilder::MapRecurrent},
        {"RNN", &GraphBuilder::MapRecurrent},
        // sampling
        {"Resize", &GraphBuilder::MapResize},
        {"Upsample", &GraphBuilder::MapUpsample},
        {"GridSample", &GraphBuilder::MapGridSample},
        // shape arithmetic
        {"Shape", &GraphBuilder::MapShape},
        {"Size", &GraphBuilder::MapSize},
        {"ConstantOfShape", &GraphBuilder::MapConstantOfShape},
        {"Range", &GraphBuilder::MapRange},
    };
    // The ops each family maps by a table of its own.
    for (const auto& entry : PlainActivations()) {
      table[entry.first] = &GraphBuilder::MapPlainActivation;
    }
    for (const auto& entry : UnaryExpressions()) {
      table[entry.first] = &GraphBuilder::MapUnaryExpression;
    }
    for (const auto& entry : BinaryFunctions()) table[entry.first] = &GraphBuilder::MapElementwise;
    for (const std::string& op : ReduceOps()) table[op] = &GraphBuilder::MapReduction;
    return table;
  }();
  return mappers;
}

const std::set<std::string>& GraphBuilder::SupportedOps() {
  static const std::set<std::string> ops = [] {
    // evaluated when loading only (on values known then)
    std::set<std::string> names = {"Constant", "And", "Or", "Not", "Mod"};
    // mapped onto layers
    for (const auto& entry : Mappers()) names.insert(entry.first);
    return names;
  }();
  return ops;
}

void GraphBuilder::MapOperator() {
  const std::string& op = node().op_type();
  const auto mapper = Mappers().find(op);
  if (mapper == Mappers().end()) {
    Fail(Concat(op,
                " of values computed at run time is not supported (Lumen evaluates it only "
                "on values known when loading)"));
  }
  (this->*mapper->second)();
}

void GraphBuilder::MapPassThrough() {
  if (node().op_type() == "Dropout" && node().output_size() > 1 && !node().output(1).empty()) {
    // The mask output of an inference-mode Dropout is all ones; nothing reads it in practice.
    Fail("the mask output of Dropout is not supported");
  }
  SetRuntimeOutput(0, RuntimeInput(0));
}

int GraphBuilder::ClampToInt(int64_t value) {
  return static_cast<int>(std::clamp<int64_t>(value, INT_MIN, INT_MAX));
}

std::vector<int> GraphBuilder::ToInts(const std::vector<int64_t>& values) {
  std::vector<int> result;
  for (int64_t value : values) result.push_back(ClampToInt(value));
  return result;
}

}  // namespace onnx
}  // namespace lumen
