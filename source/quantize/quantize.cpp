// lumen::Quantize (include/lumen/quantize.hpp): calibrate, rewrite the file's nodes, write PNNX.
//
// The model is loaded twice, in two forms: built without graph passes, so that every operand the
// file names exists and can be read after a run (calibration), and as the file's own graph
// (pnnx.Input and pnnx.Output lines kept), whose nodes are rewritten and written back. The built
// layers decide which nodes have an int8 form (Layer::QuantizedType); the quantiser names no op.
#include "lumen/quantize.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/graph.hpp"
#include "lumen/error.hpp"
#include "lumen/model.hpp"
#include "lumen/session.hpp"
#include "math/int8_gemm.hpp"
#include "pnnx/param_reader.hpp"
#include "pnnx/pnnx_reader.hpp"
#include "pnnx/pnnx_writer.hpp"
#include "quantize/activation_range.hpp"
#include "runtime/model_internals.hpp"

namespace lumen {
namespace {

// A layer that will be quantised: its node, its int8 type, and what calibration saw of its input.
struct Candidate {
  std::string description;
  std::string new_type;
  std::string input;  // the operand it reads
  ActivationRange range;
};

// Throws unless `path` starts as a .pnnx.param does: only PNNX files can be written back.
void RequirePnnx(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error(Concat(path, ": cannot open the model"));
  char head[7] = {};
  file.read(head, sizeof(head));
  if (std::memcmp(head, "7767517", sizeof(head)) != 0) {
    throw Error(Concat(path, ": not a .pnnx.param file; Quantize reads and writes PNNX models"));
  }
}

// `values` (row-major) as the bytes of `attribute`, whose element type becomes `type` (i8, f32 or
// bf16, matching Value).
template <typename Value>
void StoreValues(const std::vector<Value>& values, DataType type, Attribute* attribute) {
  attribute->type = type;
  attribute->data.resize(values.size() * sizeof(Value));
  std::memcpy(attribute->data.data(), values.data(), attribute->data.size());
}

// Runs the model on every calibration sample, handing each candidate's input to `add`.
template <typename Add>
void RunCalibration(const std::shared_ptr<const Model>& model, int threads,
                    const std::vector<std::vector<Tensor>>& calibration,
                    std::map<std::string, Candidate>* candidates, Add add) {
  SessionOptions session_options;
  session_options.threads = threads;
  Session session(model, session_options);
  session.KeepAllOperands();
  for (size_t sample = 0; sample < calibration.size(); ++sample) {
    const std::vector<Tensor>& inputs = calibration[sample];
    if (inputs.size() != model->input_names().size()) {
      throw Error(Concat("calibration sample ", sample, " has ", inputs.size(),
                         " inputs, the model takes ", model->input_names().size()));
    }
    try {
      session.Run(inputs);
    } catch (const Error& error) {
      throw Error(Concat("calibration sample ", sample, ": ", error.what()));
    }
    for (auto& [name, candidate] : *candidates) {
      const std::vector<float> values = session.operand(candidate.input).ToRowMajor();
      add(values, &candidate.range);
    }
  }
}

// Rewrites `node` (a file node Candidate `candidate` describes) into its int8 form.
void QuantizeNode(const Candidate& candidate, const QuantizeOptions& options, Node* node,
                  QuantizedLayer* report) {
  float low = candidate.range.min();
  float high = candidate.range.max();
  if (candidate.range.empty()) {
    low = high = 0.0f;  // nothing finite seen: only zero is certain
  } else if (options.method == CalibrationMethod::kPercentile) {
    candidate.range.PercentileRange(options.percentile, &low, &high);
  } else if (options.method == CalibrationMethod::kMse) {
    candidate.range.MseRange(&low, &high);
  }
  const Uint8Quantization input = ChooseUint8Quantization(low, high);
  Attribute& weight = node->attributes.at("weight");
  const std::vector<float> weights = weight.ToFloats();
  const int outputs = weight.shape.at(0);
  std::vector<int8_t> quantized;
  std::vector<float> scales;
  QuantizeWeightsPerChannel(weights.data(), outputs, static_cast<int>(weights.size() / outputs),
                            &quantized, &scales);
  StoreValues(quantized, DataType::kInt8, &weight);
  Attribute& weight_scales = node->attributes["weight_scales"];
  weight_scales.shape = {outputs};
  StoreValues(scales, DataType::kFloat32, &weight_scales);
  node->type = candidate.new_type;
  node->params["input_scale"] = Parameter::FromFloat(input.scale);
  node->params["input_zero_point"] = Parameter::FromInt(input.zero_point);
  report->new_type = candidate.new_type;
  report->input_min = low;
  report->input_max = high;
  report->input_scale = input.scale;
  report->input_zero_point = input.zero_point;
}

// Rounds `node`'s float @weight to bfloat16.
void RoundWeightToBFloat16(Node* node) {
  Attribute& weight = node->attributes.at("weight");
  const std::vector<float> weights = weight.ToFloats();
  std::vector<uint16_t> rounded(weights.size());
  for (size_t i = 0; i < weights.size(); ++i) rounded[i] = FloatToBFloat16(weights[i]);
  StoreValues(rounded, DataType::kBFloat16, &weight);
}

}  // namespace

QuantizeReport Quantize(const std::string& model_path,
                        const std::vector<std::vector<Tensor>>& calibration,
                        const std::string& output_prefix, const QuantizeOptions& options) {
  RequirePnnx(model_path);
  const bool int8 = options.precision == QuantizedPrecision::kInt8;
  if (int8 && calibration.empty()) {
    throw Error("int8 quantisation needs calibration inputs (none given)");
  }
  if (options.method == CalibrationMethod::kPercentile &&
      !(options.percentile > 50.0 && options.percentile <= 100.0)) {
    throw Error(Concat("percentile must be in (50, 100], got ", options.percentile));
  }
  const std::string bin_path =
      options.weights_path.empty() ? PnnxBinPathFor(model_path) : options.weights_path;

  // Which layers have an int8 form, asked of the layers built from the file.
  ModelOptions model_options;
  model_options.weights_path = bin_path;
  model_options.fuse = false;
  const std::shared_ptr<const Model> model = Model::Load(model_path, model_options);
  const RuntimeGraph& built = ModelInternals::Graph(*model);
  std::map<std::string, Candidate> candidates;  // by node name
  for (const RuntimeGraph::Step& step : built.steps()) {
    const std::string new_type = step.layer->QuantizedType();
    if (new_type.empty()) continue;
    Candidate& candidate = candidates[step.name];
    candidate.description = step.description;
    candidate.new_type = new_type;
    candidate.input = built.operands()[step.inputs.at(0)].name;
  }
  for (const std::string& name : options.keep_float) {
    const bool known =
        std::any_of(built.steps().begin(), built.steps().end(),
                    [&](const RuntimeGraph::Step& step) { return step.name == name; });
    if (!known)
      throw Error(Concat(model_path, ": keep_float names '", name, "', no operator's name"));
    candidates.erase(name);
  }
  if (candidates.empty()) {
    throw Error(Concat(model_path, ": nothing to quantise (no layer has an int8 form: nn.Conv2d ",
                       "without groups and with zero padding, nn.Linear)"));
  }

  if (int8) {
    RunCalibration(model, options.threads, calibration, &candidates,
                   [](const std::vector<float>& values, ActivationRange* range) {
                     range->AddToExtremes(values.data(), values.size());
                   });
    if (options.method != CalibrationMethod::kMinMax) {  // both others read the histogram
      RunCalibration(model, options.threads, calibration, &candidates,
                     [](const std::vector<float>& values, ActivationRange* range) {
                       range->AddToHistogram(values.data(), values.size());
                     });
    }
  }

  Graph file = ReadPnnxParam(model_path);
  ReadPnnxWeights(bin_path, model_path, &file);
  QuantizeReport report;
  report.param_path = output_prefix + ".pnnx.param";
  report.bin_path = output_prefix + ".pnnx.bin";
  report.calibration_samples = int8 ? static_cast<int>(calibration.size()) : 0;
  for (Node& node : file.nodes) {
    const auto found = candidates.find(node.name);
    if (found == candidates.end()) continue;
    QuantizedLayer layer;
    layer.description = found->second.description;
    if (int8) {
      QuantizeNode(found->second, options, &node, &layer);
    } else {
      RoundWeightToBFloat16(&node);
      layer.new_type = node.type;
    }
    report.layers.push_back(layer);
  }
  WritePnnxModel(file, report.param_path, report.bin_path);
  return report;
}

}  // namespace lumen
