// Which version of each ONNX op a model uses, and which versions the reader maps: ONNX changes an
// op's semantics by giving it a new version at some opset (Slice's bounds became inputs at 10,
// Pad's at 11, Clip's at 11, Softmax stopped flattening at 13, Split got num_outputs at 18), and a
// file at opset N uses, for each op, the newest version not above N. Every op of a model is checked
// against the versions its mapper implements before it is mapped or evaluated, so that an old (or
// newer) op is read with its own semantics or refused naming the op, the node and the opset, never
// computed with another version's.
#include <map>
#include <vector>

#include "lumen/error.hpp"
#include "onnx/onnx_graph_builder.hpp"

namespace lumen {
namespace onnx {

namespace {

// The opsets the reader first read: an op not in ExtendedVersions() is implemented in the
// versions in effect between them.
constexpr int kFirstReadOpset = 11;
constexpr int kLastReadOpset = 17;

// The opsets at which each default-domain op got a new version, up to kNewestOnnxOpset (the table
// is data: onnx_op_versions.inc).
const std::map<std::string, std::vector<int>>& OpVersions() {
  static const std::map<std::string, std::vector<int>> versions = {
#include "onnx/onnx_op_versions.inc"
  };
  return versions;
}

// The oldest and newest versions of an op that its mapper (or folder) implements.
struct VersionRange {
  int oldest;
  int newest;
};

// The ops whose mappers implement other versions than the ones in effect at opsets 11 to 17 (the
// range the reader started with, which is every other op's default). Old versions listed here
// differ from the newer ones only in what the mappers read either way (an attribute that became
// an input, broadcasting rules, types Lumen does not hold) or in a branch of their mapper.
const std::map<std::string, VersionRange>& ExtendedVersions() {
  static const std::map<std::string, VersionRange> ranges = {
      // Attributes that became inputs: each mapper reads either.
      {"Clip", {6, 13}},   // min and max attributes before 11
      {"Pad", {2, 18}},    // pads and value attributes before 11; the axes input from 18
      {"Slice", {1, 13}},  // starts, ends and axes attributes before 10
      {"Split", {2, 18}},  // split attribute before 13; num_outputs from 18
      {"Squeeze", {1, 13}},
      {"Unsqueeze", {1, 13}},
      {"ReduceL2", {1, 18}},  // axes attribute before 18 (13 for ReduceSum), input from 18
      {"ReduceMax", {1, 18}},
      {"ReduceMean", {1, 18}},
      {"ReduceMin", {1, 18}},
      {"ReduceSum", {1, 13}},
      {"Upsample", {7, 10}},  // scales attribute at 7, input from 9
      {"Resize", {10, 18}},   // 10: asymmetric coordinates; 18: antialias, axes and the policy
      // Versions 1 to 10 differ only in negative axes (allowed from 11) or in types.
      {"ArgMax", {1, 13}},
      {"ArgMin", {1, 13}},
      {"Concat", {4, 13}},
      {"DepthToSpace", {1, 13}},  // no mode attribute before 11: DCR, the default
      {"Flatten", {1, 13}},
      {"Gather", {1, 13}},
      {"Softmax", {1, 13}},  // the same flattening semantics as 11 (MapSoftmax)
      {"Conv", {1, 11}},
      {"ConvTranspose", {1, 11}},  // version 1 without output_shape and auto_pad (CheckOpVersion)
      // Pooling before 10 has no ceil_mode and no dilations (CheckOpVersion).
      {"AveragePool", {7, 11}},
      {"MaxPool", {1, 12}},
      // Opset 7's versions: no broadcast attribute, numpy broadcasting (what the mappers do).
      {"Add", {7, 14}},
      {"Sub", {7, 14}},
      {"Mul", {7, 14}},
      {"Div", {7, 14}},
      {"Pow", {7, 15}},
      {"PRelu", {7, 16}},
      {"Gemm", {7, 13}},
      {"Equal", {7, 13}},
      {"Less", {7, 13}},
      {"Greater", {7, 13}},
      // Sum, Max and Min before 8 take inputs of one shape (a case of broadcasting).
      {"Max", {6, 13}},
      {"Min", {6, 13}},
      {"Sum", {6, 13}},
      // Inference: training-only outputs and modes are refused (CheckOpVersion); 7 has `spatial`.
      {"BatchNormalization", {7, 15}},
      {"Dropout", {7, 13}},
      // Version 7 of the recurrent ops is version 14 without the layout attribute (layout=0).
      {"GRU", {7, 14}},
      {"LSTM", {7, 14}},
      {"RNN", {7, 14}},
      // Version 6 dropped consumed_inputs; the computation is the same since.
      {"Abs", {6, 13}},
      {"Cast", {6, 13}},
      {"Ceil", {6, 13}},
      {"Elu", {6, 6}},
      {"Exp", {6, 13}},
      {"Floor", {6, 13}},
      {"HardSigmoid", {6, 6}},
      {"InstanceNormalization", {6, 6}},
      {"LeakyRelu", {6, 16}},
      {"Log", {6, 13}},
      {"Neg", {6, 13}},
      {"Reciprocal", {6, 13}},
      {"Relu", {6, 14}},
      {"Sigmoid", {6, 13}},
      {"Sqrt", {6, 13}},
      {"Tanh", {6, 13}},
      {"Tile", {6, 13}},
      // Shape arithmetic: Shape's start and end (15) default to the whole shape.
      {"Reshape", {5, 14}},
      {"Shape", {1, 15}},
      {"Size", {1, 13}},
      {"Transpose", {1, 13}},
      {"Constant", {1, 13}},
      {"Identity", {1, 16}},
      {"MatMul", {1, 13}},
      {"Mish", {18, 18}},  // an op of opset 18: its one version
      // Scatter (9, deprecated at 11) is ScatterElements 11 under its old name; 9 has no
      // negative indices, which torch.scatter refuses as well.
      {"Scatter", {9, 11}},
  };
  return ranges;
}

}  // namespace

int GraphBuilder::OpVersion(const std::string& op, int opset) {
  const auto found = OpVersions().find(op);
  if (found == OpVersions().end()) return 0;
  int version = 0;
  for (int since : found->second) {
    if (since <= opset) version = since;
  }
  return version;
}

void GraphBuilder::CheckOpVersion() const {
  const std::string& op = node().op_type();
  const int version = OpVersion(op, opset_);
  // An op ONNX does not list, or one newer than the model's opset (which ONNX's checker refuses
  // and exporters never write): nothing to choose between.
  if (version == 0) return;
  const auto extended = ExtendedVersions().find(op);
  const VersionRange range =
      extended != ExtendedVersions().end()
          ? extended->second
          : VersionRange{OpVersion(op, kFirstReadOpset), OpVersion(op, kLastReadOpset)};
  if (version < range.oldest || version > range.newest) {
    Fail(Concat("version ", version, " of ", op, " (the one opset ", opset_,
                " uses) is not supported: Lumen implements ", op, " as ONNX defines it in ",
                range.oldest == range.newest
                    ? Concat("version ", range.oldest)
                    : Concat("versions ", range.oldest, " to ", range.newest),
                ", and computing it with another version's semantics would be wrong"));
  }
  // What an old version's file can say that the mapper would otherwise read with newer semantics.
  if ((op == "MaxPool" || op == "AveragePool") && version < 10) {
    for (const char* attribute : {"ceil_mode", "dilations"}) {
      if (FindAttribute(node(), attribute)) {
        Fail(Concat(op, " has no attribute ", attribute, " before opset 10"));
      }
    }
  }
  if (op == "ConvTranspose" && version < 11 &&
      (FindAttribute(node(), "output_shape") || String("auto_pad", "NOTSET") != "NOTSET")) {
    Fail(
        "output_shape and auto_pad of ConvTranspose before opset 11 (version 1, whose padding "
        "rules differ) are not supported; only explicit pads");
  }
  if (op == "BatchNormalization" && version < 14) {
    // Before opset 14 the outputs past Y are what selects training mode.
    for (int output = 1; output < node().output_size(); ++output) {
      if (!node().output(output).empty()) {
        Fail(
            Concat("BatchNormalization with the running statistics' outputs computes in "
                   "training mode before opset 14, which is not supported (inference only)"));
      }
    }
    if (version < 9 && Int("spatial", 1) != 1) {
      Fail("spatial=0 (statistics per element, not per channel) is not supported");
    }
  }
}

}  // namespace onnx
}  // namespace lumen
