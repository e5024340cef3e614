// Quantize: turns an fp32 PNNX model into a quantised PNNX model that Model::Load reads and every
// program runs unchanged (public API; the command-line tool is lumen_quantize).
//
//   std::vector<std::vector<lumen::Tensor>> calibration = ...;   // a few typical inputs
//   lumen::QuantizeReport report =
//       lumen::Quantize("resnet18.pnnx.param", calibration, "resnet18_int8");
//   auto model = lumen::Model::Load(report.param_path);            // resnet18_int8.pnnx.param
//
// int8: the fp32 model runs on the calibration inputs, and the values reaching each layer that has
// an int8 form (nn.Conv2d without groups, nn.Linear) give that layer's input range, quantised per
// tensor to uint8 with a zero point; its weights are quantised symmetrically per output channel.
// Every other layer stays fp32 and takes float inputs: one model mixes both. The layers' int8
// format is in course/pnnx-format.md.
//
// bf16: the same layers' weights are rounded to bfloat16 (half the bytes); no calibration.
#ifndef LUMEN_QUANTIZE_HPP_
#define LUMEN_QUANTIZE_HPP_

#include <string>
#include <vector>

#include "lumen/tensor.hpp"

namespace lumen {

// What Quantize writes.
enum class QuantizedPrecision {
  kInt8,      // int8 weights, uint8 activations, calibrated
  kBFloat16,  // bfloat16 weights, computed in fp32
};

// How each activation's range is chosen from the calibration runs.
enum class CalibrationMethod {
  kMinMax,      // the smallest and largest value seen
  kPercentile,  // cut both tails: the range holds `percentile`% of the values on each side
  kMse,         // the range whose quantisation adds the least squared error (rounding + clipping)
};

// How Quantize works.
struct QuantizeOptions {
  // The .pnnx.bin of the input model; empty: the file beside the .param.
  std::string weights_path;
  QuantizedPrecision precision = QuantizedPrecision::kInt8;
  CalibrationMethod method = CalibrationMethod::kMinMax;
  // For kPercentile: the share of the values (in %, in (50, 100]) kept inside the range on each
  // side; 99.99 clips the lowest and the highest 0.01%.
  double percentile = 99.99;
  // int8: shift each quantised layer's bias by the mean error its quantisation adds to each output
  // channel on the calibration inputs (a third pass over them).
  bool correct_bias = true;
  // Threads for the calibration runs; 0: one per core.
  int threads = 0;
  // Names of operators to leave in fp32 although they have an int8 form (ONNX Runtime's
  // nodes_to_exclude): layers whose error matters most, such as a stem reading raw pixels. A name
  // the model does not have is an error.
  std::vector<std::string> keep_float;
};

// One layer Quantize changed.
struct QuantizedLayer {
  std::string description;  // "nn.Conv2d 'conv1' (line 7)"
  std::string new_type;     // "lumen.QuantizedConv2d" (int8), or the same type (bf16)
  // int8: the input's range as calibrated, and its quantisation (a = scale * (q - zero_point)).
  float input_min = 0.0f;
  float input_max = 0.0f;
  float input_scale = 0.0f;
  int input_zero_point = 0;
};

// What Quantize wrote.
struct QuantizeReport {
  std::string param_path;  // PREFIX.pnnx.param
  std::string bin_path;    // PREFIX.pnnx.bin
  std::vector<QuantizedLayer> layers;
  int calibration_samples = 0;
};

// Writes the quantised form of the PNNX model at `model_path` to `output_prefix`.pnnx.param and
// `output_prefix`.pnnx.bin. `calibration` holds one list of inputs per sample, as Session::Run
// takes them (needed for int8, ignored for bf16). Throws lumen::Error for a model that is not PNNX
// or has nothing to quantise, for int8 without calibration inputs, for inputs the model cannot take
// (naming the sample), and for files that cannot be written.
QuantizeReport Quantize(const std::string& model_path,
                        const std::vector<std::vector<Tensor>>& calibration,
                        const std::string& output_prefix, const QuantizeOptions& options = {});

}  // namespace lumen

#endif  // LUMEN_QUANTIZE_HPP_
