// lumen::Quantize on real exports: what it writes (types, scales, int8 and bf16 weights), that
// the written model computes what its quantisation says it does, and the errors it gives.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "graph/graph.hpp"
#include "layer/convolution/convolution.hpp"
#include "lumen/error.hpp"
#include "lumen/model.hpp"
#include "lumen/quantize.hpp"
#include "lumen/session.hpp"
#include "math/int8_gemm.hpp"
#include "pnnx/param_reader.hpp"
#include "pnnx/pnnx_reader.hpp"
#include "pnnx/pnnx_writer.hpp"
#include "support/error_of.hpp"
#include "support/source_directory.hpp"
#include "support/test_files.hpp"

namespace lumen {
namespace {

using test_support::ErrorOf;
using ::testing::HasSubstr;

const std::string kModels = test_support::SourceDirectory() + "/tmp/models/";

// A tensor of `shape` with values drawn from N(0, 1).
Tensor RandomTensor(const Shape& shape, uint32_t seed) {
  std::mt19937 generator(seed);
  std::normal_distribution<float> normal;
  std::vector<float> values(ShapeElementCount(shape));
  for (float& value : values) value = normal(generator);
  return Tensor::FromRowMajor(values, shape);
}

// The file's graph, weights read.
Graph ReadFile(const std::string& param_path) {
  Graph graph = ReadPnnxParam(param_path);
  ReadPnnxWeights(PnnxBinPathFor(param_path), param_path, &graph);
  return graph;
}

// The node called `name`.
const Node& NodeNamed(const Graph& graph, const std::string& name) {
  for (const Node& node : graph.nodes) {
    if (node.name == name) return node;
  }
  throw Error(Concat("no node '", name, "'"));
}

// The values of an attribute stored as `Value`.
template <typename Value>
std::vector<Value> Values(const Attribute& attribute) {
  std::vector<Value> values(attribute.data.size() / sizeof(Value));
  std::memcpy(values.data(), attribute.data.data(), attribute.data.size());
  return values;
}

// A 3x3 convolution 4 -> 6 (tmp/models/conv_bn), calibrated on the very input it is then run on:
// the written layer must compute exactly the fp32 convolution of the dequantised input with the
// dequantised weights (what its scales, zero point and int8 weights say), to float rounding; and
// the quantiser's choices must be the ones ChooseUint8Quantization and QuantizeWeightsPerChannel
// make from what calibration saw. (Without bias correction, which the next test covers.)
TEST(Quantize, WritesALayerThatComputesWhatItsQuantisationSays) {
  const std::string model_path = kModels + "conv_bn/model.pnnx.param";
  const Shape shape = {1, 4, 9, 11};
  const Tensor input = RandomTensor(shape, 1);
  const std::string prefix = test_support::TestDirectory() + "conv_int8";
  QuantizeOptions options;
  options.correct_bias = false;
  const QuantizeReport report = Quantize(model_path, {{input}}, prefix, options);
  ASSERT_EQ(report.layers.size(), 1u);
  EXPECT_EQ(report.layers[0].new_type, "lumen.QuantizedConv2d");
  EXPECT_EQ(report.calibration_samples, 1);

  const std::vector<float> values = input.ToRowMajor();
  float min = values[0];
  float max = values[0];
  for (float value : values) min = std::min(min, value), max = std::max(max, value);
  EXPECT_EQ(report.layers[0].input_min, min);
  EXPECT_EQ(report.layers[0].input_max, max);
  const Uint8Quantization expected_input = ChooseUint8Quantization(min, max);
  EXPECT_EQ(report.layers[0].input_scale, expected_input.scale);
  EXPECT_EQ(report.layers[0].input_zero_point, expected_input.zero_point);

  const Graph original = ReadFile(model_path);
  const Graph written = ReadFile(report.param_path);
  const Node& layer = NodeNamed(written, "convbn2d_0");
  EXPECT_EQ(layer.type, "lumen.QuantizedConv2d");
  EXPECT_EQ(layer.params.at("input_scale").AsFloat(), expected_input.scale);  // exactly
  EXPECT_EQ(layer.params.at("input_zero_point").AsInt(), expected_input.zero_point);
  const std::vector<float> weights =
      NodeNamed(original, "convbn2d_0").attributes.at("weight").ToFloats();
  std::vector<int8_t> expected_weights;
  std::vector<float> expected_scales;
  QuantizeWeightsPerChannel(weights.data(), 6, 36, &expected_weights, &expected_scales);
  ASSERT_EQ(layer.attributes.at("weight").type, DataType::kInt8);
  EXPECT_EQ(Values<int8_t>(layer.attributes.at("weight")), expected_weights);
  EXPECT_EQ(Values<float>(layer.attributes.at("weight_scales")), expected_scales);
  EXPECT_EQ(layer.attributes.at("bias").ToFloats(),
            NodeNamed(original, "convbn2d_0").attributes.at("bias").ToFloats());

  // The fp32 model with the dequantised weights, run on the dequantised input.
  Graph dequantised = original;
  for (Node& node : dequantised.nodes) {
    if (node.name != "convbn2d_0") continue;
    std::vector<float> rounded(weights.size());
    for (size_t i = 0; i < rounded.size(); ++i) {
      rounded[i] = expected_scales[i / 36] * expected_weights[i];
    }
    std::memcpy(node.attributes.at("weight").data.data(), rounded.data(),
                rounded.size() * sizeof(float));
  }
  const std::string dequantised_path = test_support::TestDirectory() + "dequantised.pnnx.param";
  WritePnnxModel(dequantised, dequantised_path, PnnxBinPathFor(dequantised_path));
  std::vector<uint8_t> codes(values.size());
  QuantizeToUint8(values.data(), values.size(), expected_input, codes.data());
  std::vector<float> input_seen(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    input_seen[i] = expected_input.scale * (codes[i] - expected_input.zero_point);
  }
  const std::vector<float> expected = Session(Model::Load(dequantised_path))
                                          .Run({Tensor::FromRowMajor(input_seen, shape)})[0]
                                          .ToRowMajor();
  const std::vector<float> got =
      Session(Model::Load(report.param_path)).Run({input})[0].ToRowMajor();
  const std::vector<float> exact = Session(Model::Load(model_path)).Run({input})[0].ToRowMajor();
  ASSERT_EQ(got.size(), expected.size());
  double error = 0.0;
  double norm = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], expected[i], 1e-4f * (1.0f + std::fabs(expected[i]))) << "at " << i;
    error += (got[i] - exact[i]) * (got[i] - exact[i]);
    norm += exact[i] * exact[i];
  }
  // And the quantisation itself costs about 1% here (a uint8 step of ~0.03 on N(0, 1) values).
  EXPECT_LT(std::sqrt(error / norm), 0.02);
}

// A recurrent classifier (nn.LSTM, then nn.Linear): only the Linear has an int8 form; the
// calibration runs see its input over several samples, and the mixed model stays close.
TEST(Quantize, QuantisesTheLayersThatHaveAnInt8FormAndKeepsTheRest) {
  const std::string model_path = kModels + "lstm_classifier/model.pnnx.param";
  std::vector<std::vector<Tensor>> calibration;
  for (uint32_t seed = 0; seed < 4; ++seed)
    calibration.push_back({RandomTensor({1, 20, 16}, seed)});
  QuantizeOptions options;
  options.method = CalibrationMethod::kPercentile;
  const QuantizeReport report =
      Quantize(model_path, calibration, test_support::TestDirectory() + "lstm_int8", options);
  ASSERT_EQ(report.layers.size(), 1u);
  EXPECT_EQ(report.layers[0].new_type, "lumen.QuantizedLinear");
  EXPECT_EQ(report.calibration_samples, 4);
  const Graph written = ReadFile(report.param_path);
  int lstm_layers = 0;
  for (const Node& node : written.nodes) lstm_layers += node.type == "nn.LSTM";
  EXPECT_EQ(lstm_layers, 1);

  const Tensor input = RandomTensor({1, 20, 16}, 99);
  const std::vector<float> exact = Session(Model::Load(model_path)).Run({input})[0].ToRowMajor();
  const std::vector<float> got =
      Session(Model::Load(report.param_path)).Run({input})[0].ToRowMajor();
  ASSERT_EQ(got.size(), exact.size());
  double dot = 0.0, got_norm = 0.0, exact_norm = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    dot += got[i] * exact[i];
    got_norm += got[i] * got[i];
    exact_norm += exact[i] * exact[i];
  }
  EXPECT_GT(dot / std::sqrt(got_norm * exact_norm), 0.999);
}

// Bias correction on a Linear (the output layer of each model: the LSTM classifier's head, and
// a Linear without a bias over the last axis of a 4-D input, which gains one): over the
// calibration inputs themselves, the quantised model's mean error per output channel is the
// shift the correction removes, so with it each channel's mean error is zero to float rounding,
// and without it is not. The int8 weights and the input quantisation stay as they were.
TEST(Quantize, BiasCorrectionRemovesEachChannelsMeanError) {
  for (const auto& [model, shape] : std::vector<std::pair<std::string, Shape>>{
           {"lstm_classifier", {1, 20, 16}}, {"linear_nobias", {1, 4, 9, 11}}}) {
    SCOPED_TRACE(model);
    const std::string model_path = kModels + model + "/model.pnnx.param";
    std::vector<std::vector<Tensor>> calibration;
    for (uint32_t seed = 0; seed < 8; ++seed) calibration.push_back({RandomTensor(shape, seed)});
    // The largest |mean error| over the output channels (the output's last axis), and the
    // largest |output|.
    const auto mean_errors = [&](const std::string& param_path, double* largest_output) {
      Session exact_session(Model::Load(model_path));
      Session quantised_session(Model::Load(param_path));
      std::vector<double> sums;
      double values_per_channel = 0;
      *largest_output = 0.0;
      for (const std::vector<Tensor>& sample : calibration) {
        const Tensor exact_output = exact_session.Run(sample)[0];
        const std::vector<float> exact = exact_output.ToRowMajor();
        const std::vector<float> got = quantised_session.Run(sample)[0].ToRowMajor();
        const size_t channels = exact_output.shape().back();
        sums.resize(channels, 0.0);
        for (size_t i = 0; i < exact.size(); ++i) {
          sums[i % channels] += got[i] - exact[i];
          *largest_output = std::max(*largest_output, std::fabs(double{exact[i]}));
        }
        values_per_channel += static_cast<double>(exact.size()) / channels;
      }
      double largest = 0.0;
      for (double sum : sums) largest = std::max(largest, std::fabs(sum / values_per_channel));
      return largest;
    };
    QuantizeOptions options;
    options.correct_bias = false;
    const QuantizeReport plain =
        Quantize(model_path, calibration, test_support::TestDirectory() + "plain", options);
    options.correct_bias = true;
    const QuantizeReport corrected =
        Quantize(model_path, calibration, test_support::TestDirectory() + "corrected", options);
    double largest_output = 0.0;
    const double plain_error = mean_errors(plain.param_path, &largest_output);
    const double corrected_error = mean_errors(corrected.param_path, &largest_output);
    EXPECT_LT(corrected_error, 1e-5 * largest_output);
    EXPECT_GT(plain_error, 1e-4 * largest_output);
    EXPECT_EQ(plain.layers.at(0).input_scale, corrected.layers.at(0).input_scale);
    // The one quantised node of each file.
    const auto quantised_node = [](const Graph& graph) -> const Node& {
      for (const Node& node : graph.nodes) {
        if (node.type == "lumen.QuantizedLinear") return node;
      }
      throw Error("no lumen.QuantizedLinear");
    };
    const Graph plain_file = ReadFile(plain.param_path);
    const Graph corrected_file = ReadFile(corrected.param_path);
    const Node& plain_layer = quantised_node(plain_file);
    const Node& corrected_layer = quantised_node(corrected_file);
    EXPECT_EQ(Values<int8_t>(plain_layer.attributes.at("weight")),
              Values<int8_t>(corrected_layer.attributes.at("weight")));
    EXPECT_TRUE(corrected_layer.params.at("bias").AsBool());
    const auto plain_bias = plain_layer.attributes.find("bias");
    if (plain_bias != plain_layer.attributes.end()) {
      EXPECT_NE(plain_bias->second.ToFloats(), corrected_layer.attributes.at("bias").ToFloats());
    }
  }
}

TEST(Quantize, RoundsWeightsToBFloat16WithoutCalibration) {
  const std::string model_path = kModels + "conv_bn/model.pnnx.param";
  QuantizeOptions options;
  options.precision = QuantizedPrecision::kBFloat16;
  const QuantizeReport report =
      Quantize(model_path, {}, test_support::TestDirectory() + "conv_bf16", options);
  ASSERT_EQ(report.layers.size(), 1u);
  EXPECT_EQ(report.layers[0].new_type, "nn.Conv2d");
  const Graph written = ReadFile(report.param_path);
  const Attribute& weight = NodeNamed(written, "convbn2d_0").attributes.at("weight");
  ASSERT_EQ(weight.type, DataType::kBFloat16);
  const std::vector<float> original =
      NodeNamed(ReadFile(model_path), "convbn2d_0").attributes.at("weight").ToFloats();
  const std::vector<uint16_t> stored = Values<uint16_t>(weight);
  ASSERT_EQ(stored.size(), original.size());
  for (size_t i = 0; i < stored.size(); ++i) EXPECT_EQ(stored[i], FloatToBFloat16(original[i]));
  const Tensor input = RandomTensor({1, 4, 9, 11}, 3);
  const std::vector<float> exact = Session(Model::Load(model_path)).Run({input})[0].ToRowMajor();
  const std::vector<float> got =
      Session(Model::Load(report.param_path)).Run({input})[0].ToRowMajor();
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], exact[i], 0.02f) << "at " << i;
}

// Convolutions whose int8 form would compute in fp32 (QuantizedConvolutionComputesInInt8: fewer
// than 32 products per output or 32 outputs, unless 3x3 stride 1) keep their fp32 weights, in an
// int8 file and a bf16 one alike (the same layers): MobileNetV2 0.5's 3 -> 16 stem, its 16 -> 8,
// 8 -> 48 and 48 -> 16 1x1 layers stay fp32, its 160 -> 1280 is rounded. Checked against the rule
// for every convolution of the file, and by name for a few.
TEST(Quantize, LeavesConvolutionsThatWouldComputeInFloatAsTheyAre) {
  const std::string model_path = kModels + "mobilenet_v2_050/model.pnnx.param";
  QuantizeOptions options;
  options.precision = QuantizedPrecision::kBFloat16;
  const QuantizeReport report =
      Quantize(model_path, {}, test_support::TestDirectory() + "mobilenet_bf16", options);
  const Graph original = ReadFile(model_path);
  const Graph written = ReadFile(report.param_path);
  size_t rounded = 0;
  for (const Node& node : original.nodes) {
    if (node.type != "nn.Conv2d") continue;
    const auto param = [&](const char* key) { return node.params.at(key).AsIntArray(); };
    Window2d window;
    window.kernel_h = param("kernel_size")[0];
    window.kernel_w = param("kernel_size")[1];
    window.stride_h = param("stride")[0];
    window.stride_w = param("stride")[1];
    window.dilation_h = param("dilation")[0];
    window.dilation_w = param("dilation")[1];
    const int groups = node.params.at("groups").AsInt();
    const bool int8_form = groups == 1 && QuantizedConvolutionComputesInInt8(
                                              window, node.params.at("in_channels").AsInt(),
                                              node.params.at("out_channels").AsInt(), groups);
    const DataType type = NodeNamed(written, node.name).attributes.at("weight").type;
    EXPECT_EQ(type, int8_form ? DataType::kBFloat16 : DataType::kFloat32) << node.name;
    rounded += int8_form;
  }
  EXPECT_EQ(report.layers.size(), rounded + 1);  // and the classifier's nn.Linear
  for (const char* narrow : {"convbn2d_0", "convbn2d_2", "convbn2d_3", "convbn2d_5"}) {
    EXPECT_EQ(NodeNamed(written, narrow).attributes.at("weight").type, DataType::kFloat32)
        << narrow;
  }
  EXPECT_EQ(NodeNamed(written, "convbn2d_51").attributes.at("weight").type, DataType::kBFloat16);
}

// The rule's edges, on full-width MobileNetV2's layers (measured on AMX and VNNI: the int8 form of
// its 24 -> 144 1x1 layers on 56x56 maps took 1.2-1.7x the fp32 layer's time, its 3 -> 32 3x3
// stride-2 stem 1.26x; 32 -> 192 broke even).
TEST(Quantize, ComputesInInt8FromThirtyTwoProductsAndThirtyTwoOutputs) {
  const auto window = [](int kernel, int stride) {
    Window2d w;
    w.kernel_h = w.kernel_w = kernel;
    w.stride_h = w.stride_w = stride;
    w.pad_top = w.pad_bottom = w.pad_left = w.pad_right = kernel / 2;
    return w;
  };
  EXPECT_FALSE(QuantizedConvolutionComputesInInt8(window(3, 2), 3, 32, 1));    // 27 products
  EXPECT_FALSE(QuantizedConvolutionComputesInInt8(window(1, 1), 24, 144, 1));  // 24 products
  EXPECT_TRUE(QuantizedConvolutionComputesInInt8(window(1, 1), 32, 192, 1));
  EXPECT_FALSE(QuantizedConvolutionComputesInInt8(window(1, 1), 192, 31, 1));  // 31 outputs
  EXPECT_TRUE(QuantizedConvolutionComputesInInt8(window(1, 1), 192, 32, 1));
  EXPECT_TRUE(QuantizedConvolutionComputesInInt8(window(3, 1), 3, 16, 1));    // integer Winograd
  EXPECT_FALSE(QuantizedConvolutionComputesInInt8(window(1, 1), 64, 62, 2));  // 31 outputs each
  EXPECT_TRUE(QuantizedConvolutionComputesInInt8(window(1, 1), 64, 64, 2));
  EXPECT_FALSE(QuantizedConvolutionComputesInInt8(window(1, 1), 60, 64, 2));  // 30 products
}

TEST(Quantize, KeepFloatLeavesTheNamedLayerAndRefusesUnknownNames) {
  const std::string model_path = kModels + "conv_bn/model.pnnx.param";
  const Tensor input = RandomTensor({1, 4, 9, 11}, 1);
  QuantizeOptions options;
  options.keep_float = {"convbn2d_0"};
  EXPECT_THAT(ErrorOf([&] {
                Quantize(model_path, {{input}}, test_support::TestDirectory() + "k", options);
              }),
              HasSubstr("nothing to quantise"));
  options.keep_float = {"no_such_layer"};
  EXPECT_THAT(ErrorOf([&] {
                Quantize(model_path, {{input}}, test_support::TestDirectory() + "k", options);
              }),
              HasSubstr("keep_float names 'no_such_layer', no operator's name"));
}

TEST(Quantize, GivesClearErrors) {
  const std::string conv = kModels + "conv_bn/model.pnnx.param";
  const std::string out = test_support::TestDirectory() + "out";
  const Tensor input = RandomTensor({1, 4, 9, 11}, 1);
  EXPECT_THAT(ErrorOf([&] { Quantize(conv, {}, out); }),
              HasSubstr("int8 quantisation needs calibration inputs"));
  EXPECT_THAT(ErrorOf([&] {
                Quantize(conv, {{input, input}}, out);
              }),
              HasSubstr("calibration sample 0 has 2 inputs, the model takes 1"));
  EXPECT_THAT(ErrorOf([&] {
                Quantize(conv, {{input}, {RandomTensor({1, 3, 9, 11}, 2)}}, out);
              }),
              HasSubstr("calibration sample 1: "));
  EXPECT_THAT(
      ErrorOf([&] { Quantize(kModels + "conv_depthwise/model.pnnx.param", {{input}}, out); }),
      HasSubstr("nothing to quantise"));
  const std::string text = test_support::WriteFile("model.onnx", "not a pnnx file");
  EXPECT_THAT(ErrorOf([&] { Quantize(text, {{input}}, out); }),
              HasSubstr("not a .pnnx.param file"));
  QuantizeOptions options;
  options.method = CalibrationMethod::kPercentile;
  options.percentile = 30.0;
  EXPECT_THAT(ErrorOf([&] { Quantize(conv, {{input}}, out, options); }),
              HasSubstr("percentile must be in (50, 100], got 30"));
  EXPECT_THAT(ErrorOf([&] { Quantize(conv, {{input}}, "/nonexistent-folder/out"); }),
              HasSubstr("/nonexistent-folder/out.pnnx."));
}

}  // namespace
}  // namespace lumen
