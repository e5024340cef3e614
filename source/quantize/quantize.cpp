// lumen::Quantize (include/lumen/quantize.hpp): calibrate, rewrite the file's nodes, write PNNX.
//
// The model is loaded twice, in two forms: built without graph passes, so that every operand the
// file names exists and can be read after a run (calibration), and as the file's own graph
// (pnnx.Input and pnnx.Output lines kept), whose nodes are rewritten and written back. The built
// layers decide which nodes have an int8 form (Layer::QuantizedType); the quantiser names no op.
#include "lumen/quantize.hpp"

#include <algorithm>
#include <cmath>
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
  // For bias correction: dimensions after the channel axis in the input (a Conv2d's H and W: 2;
  // a Linear's features are the last axis: 0), and per input channel the sums, over calibration,
  // of the input and of the error its quantisation adds (dequantised minus exact), and how many
  // values each channel summed.
  int trailing_dimensions = 0;
  float low = 0.0f;  // the range chosen from `range`, and its quantisation
  float high = 0.0f;
  Uint8Quantization quantization;
  std::vector<double> input_sums;
  std::vector<double> error_sums;
  double values_per_channel = 0;
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
    for (auto& [name, candidate] : *candidates) add(session.operand(candidate.input), &candidate);
  }
}

// Chooses `candidate`'s range by `options.method` from what calibration saw, and its quantisation.
void ChooseRange(const QuantizeOptions& options, Candidate* candidate) {
  const ActivationRange& range = candidate->range;
  float low = range.min();
  float high = range.max();
  if (range.empty()) {
    low = high = 0.0f;  // nothing finite seen: only zero is certain
  } else if (options.method == CalibrationMethod::kPercentile) {
    range.PercentileRange(options.percentile, &low, &high);
  } else if (options.method == CalibrationMethod::kMse) {
    range.MseRange(&low, &high);
  }
  candidate->low = low;
  candidate->high = high;
  candidate->quantization = ChooseUint8Quantization(low, high);
}

// Adds one calibration run's input of `candidate` to its per-channel sums of the input and of the
// error the input's quantisation adds (values that are not finite left out, as in the ranges).
void AddToErrorSums(const Tensor& operand, Candidate* candidate) {
  const Shape& shape = operand.shape();
  const int channel_axis = static_cast<int>(shape.size()) - 1 - candidate->trailing_dimensions;
  if (channel_axis < 0) return;  // not the layout the layer reads: no correction learnt from it
  const size_t channels = shape[channel_axis];
  size_t inner = 1;
  for (size_t axis = channel_axis + 1; axis < shape.size(); ++axis) inner *= shape[axis];
  const std::vector<float> values = operand.ToRowMajor();
  std::vector<uint8_t> quantized(values.size());
  QuantizeToUint8(values.data(), values.size(), candidate->quantization, quantized.data());
  candidate->input_sums.resize(channels, 0.0);
  candidate->error_sums.resize(channels, 0.0);
  const double scale = candidate->quantization.scale;
  const int zero_point = candidate->quantization.zero_point;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) continue;
    const size_t channel = (i / inner) % channels;
    candidate->input_sums[channel] += values[i];
    candidate->error_sums[channel] += scale * (quantized[i] - zero_point) - values[i];
  }
  candidate->values_per_channel += static_cast<double>(values.size()) / channels;
}

// Bias correction: the quantised layer computes w_q * x_q where the fp32 one computes w * x, and
//   w_q x_q - w x = w_q (x_q - x) + (w_q - w) x,
// whose mean over the calibration inputs, per output channel, is a constant shift of that
// channel (clipping, above all, makes x_q - x lean one way). Subtracting it from the bias removes
// it. The means are taken per input channel, as if every window position saw the channel's mean:
// exact for a Linear, and for a convolution but for the border, where padding reads zeros.
// `weights` and `dequantized` are the layer's (out, in, taps...) fp32 and dequantised weights.
std::vector<float> BiasCorrection(const Candidate& candidate, const std::vector<float>& weights,
                                  const std::vector<float>& dequantized, int outputs) {
  std::vector<float> correction(outputs, 0.0f);
  const size_t channels = candidate.input_sums.size();
  if (channels == 0 || candidate.values_per_channel == 0) return correction;
  const size_t per_output = weights.size() / outputs;
  if (per_output % channels != 0) return correction;  // not the layout expected: leave it
  const size_t taps = per_output / channels;
  for (int j = 0; j < outputs; ++j) {
    double shift = 0.0;
    for (size_t c = 0; c < channels; ++c) {
      const double mean_input = candidate.input_sums[c] / candidate.values_per_channel;
      const double mean_error = candidate.error_sums[c] / candidate.values_per_channel;
      for (size_t t = 0; t < taps; ++t) {
        const size_t index = j * per_output + c * taps + t;
        shift +=
            dequantized[index] * mean_error + (dequantized[index] - weights[index]) * mean_input;
      }
    }
    correction[j] = static_cast<float>(shift);
  }
  return correction;
}

// Subtracts BiasCorrection's shifts from `node`'s bias (giving it one if it has none), for the
// fp32 `weights` quantised to `quantized` with per-output-channel `scales`.
void CorrectBias(const Candidate& candidate, const std::vector<float>& weights,
                 const std::vector<int8_t>& quantized, const std::vector<float>& scales,
                 Node* node) {
  const int outputs = static_cast<int>(scales.size());
  const std::vector<float> dequantized = DequantizeWeightsPerChannel(quantized, scales);
  const std::vector<float> correction = BiasCorrection(candidate, weights, dequantized, outputs);
  if (std::all_of(correction.begin(), correction.end(), [](float v) { return v == 0.0f; })) return;
  std::vector<float> bias(outputs, 0.0f);
  const auto found = node->attributes.find("bias");
  const bool has_bias = node->params.count("bias") && node->params.at("bias").AsBool() &&
                        found != node->attributes.end();
  if (has_bias) bias = found->second.ToFloats();
  if (bias.size() != static_cast<size_t>(outputs)) return;  // the layer refuses it at load
  for (int j = 0; j < outputs; ++j) bias[j] -= correction[j];
  Attribute& bias_attribute = node->attributes["bias"];
  bias_attribute.shape = {outputs};
  StoreValues(bias, DataType::kFloat32, &bias_attribute);
  node->params["bias"] = Parameter::FromBool(true);
}

// Rewrites `node` (a file node Candidate `candidate` describes) into its int8 form.
void QuantizeNode(const Candidate& candidate, const QuantizeOptions& options, Node* node,
                  QuantizedLayer* report) {
  const Uint8Quantization input = candidate.quantization;
  Attribute& weight = node->attributes.at("weight");
  const std::vector<float> weights = weight.ToFloats();
  const int outputs = weight.shape.at(0);
  std::vector<int8_t> quantized;
  std::vector<float> scales;
  QuantizeWeightsPerChannel(weights.data(), outputs, static_cast<int>(weights.size() / outputs),
                            &quantized, &scales);
  if (options.correct_bias) CorrectBias(candidate, weights, quantized, scales, node);
  StoreValues(quantized, DataType::kInt8, &weight);
  Attribute& weight_scales = node->attributes["weight_scales"];
  weight_scales.shape = {outputs};
  StoreValues(scales, DataType::kFloat32, &weight_scales);
  node->type = candidate.new_type;
  node->params["input_scale"] = Parameter::FromFloat(input.scale);
  node->params["input_zero_point"] = Parameter::FromInt(input.zero_point);
  report->new_type = candidate.new_type;
  report->input_min = candidate.low;
  report->input_max = candidate.high;
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

  Graph file = ReadPnnxParam(model_path);
  ReadPnnxWeights(bin_path, model_path, &file);
  if (int8) {
    RunCalibration(model, options.threads, calibration, &candidates,
                   [](const Tensor& operand, Candidate* candidate) {
                     const std::vector<float> values = operand.ToRowMajor();
                     candidate->range.AddToExtremes(values.data(), values.size());
                   });
    if (options.method != CalibrationMethod::kMinMax) {  // both others read the histogram
      RunCalibration(model, options.threads, calibration, &candidates,
                     [](const Tensor& operand, Candidate* candidate) {
                       const std::vector<float> values = operand.ToRowMajor();
                       candidate->range.AddToHistogram(values.data(), values.size());
                     });
    }
    for (auto& [name, candidate] : candidates) ChooseRange(options, &candidate);
    if (options.correct_bias) {
      // The channel axis of each layer's input: its weights are (out, in, spatial...), and its
      // input (..., in, spatial...).
      for (const Node& node : file.nodes) {
        const auto found = candidates.find(node.name);
        const auto weight = node.attributes.find("weight");
        if (found == candidates.end() || weight == node.attributes.end()) continue;
        found->second.trailing_dimensions =
            std::max(0, static_cast<int>(weight->second.shape.size()) - 2);
      }
      RunCalibration(model, options.threads, calibration, &candidates, AddToErrorSums);
    }
  }

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
