// Quantised layers in a model read from a .pnnx.param/.pnnx.bin pair: Model::Load reads the i8
// weights, the activation-fusion pass fuses the ReLU after lumen.QuantizedConv2d, a quantised and
// an fp32 layer run one after the other, and a bad scale in the file is refused at load.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "layer/quantized/quantized_testing.hpp"
#include "lumen/error.hpp"
#include "lumen/model.hpp"
#include "lumen/session.hpp"
#include "support/case_runner.hpp"
#include "support/kernel_testing.hpp"
#include "support/zip_writer.hpp"

namespace lumen {
namespace {

using test_support::QuantizationOfRange;
using test_support::QuantizedLayerWeights;
using test_support::QuantizedOperator;
using test_support::QuantizeLayerWeights;
using test_support::RandomValues;
using test_support::RunLayer;
using test_support::RunWithActivation;
using ::testing::HasSubstr;

// `values` as the bytes of a .pnnx.bin member.
template <typename Value>
std::string Bytes(const std::vector<Value>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(Value));
}

// Writes `param` and a .bin of `members` under the test's temporary directory; returns the
// .param's path.
std::string WriteModel(const std::string& name, const std::string& param,
                       const std::vector<std::pair<std::string, std::string>>& members) {
  const std::string prefix = ::testing::TempDir() + name;
  std::ofstream(prefix + ".pnnx.param", std::ios::binary) << param;
  test_support::ZipWriter writer;
  writer.members = members;
  std::ofstream(prefix + ".pnnx.bin", std::ios::binary) << writer.Bytes();
  return prefix + ".pnnx.param";
}

// `value` as pnnx spells a float (%e).
std::string FloatSpelling(float value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%e", value);
  return text;
}

// A 2 -> 3 3x3 quantised convolution, a ReLU and an fp32 1x1 nn.Conv2d 3 -> 2, as a file.
struct MixedModel {
  QuantizedLayerWeights quantized;
  std::vector<float> bias, pointwise;
  Uint8Quantization input;
  std::vector<float> values;  // the input, (1,2,5,6)

  MixedModel() {
    std::mt19937 generator(9);
    quantized = QuantizeLayerWeights(RandomValues(3 * 2 * 9, &generator), {3, 2, 3, 3});
    bias = RandomValues(3, &generator);
    pointwise = RandomValues(2 * 3, &generator);
    values = RandomValues(2 * 5 * 6, &generator, -1, 1.5f);
    input = QuantizationOfRange(values);
  }

  // The .param text, with `input_scale` spelled as given.
  std::string Param(const std::string& input_scale) const {
    return "7767517\n5 4\n"
           "pnnx.Input in 0 1 x\n"
           "lumen.QuantizedConv2d qconv 1 1 x y bias=True dilation=(1,1) groups=1 "
           "in_channels=2 input_scale=" +
           input_scale + " input_zero_point=" + std::to_string(input.zero_point) +
           " kernel_size=(3,3) out_channels=3 padding=(1,1) stride=(1,1) "
           "@weight=(3,2,3,3)i8 @weight_scales=(3)f32 @bias=(3)f32\n"
           "nn.ReLU relu 1 1 y z\n"
           "nn.Conv2d conv 1 1 z w bias=False dilation=(1,1) groups=1 in_channels=3 "
           "kernel_size=(1,1) out_channels=2 padding=(0,0) stride=(1,1) @weight=(2,3,1,1)f32\n"
           "pnnx.Output out 1 0 w\n";
  }
  // The .bin's members.
  std::vector<std::pair<std::string, std::string>> Members() const {
    return {{"qconv.weight", Bytes(quantized.values)},
            {"qconv.weight_scales", Bytes(quantized.scales)},
            {"qconv.bias", Bytes(bias)},
            {"conv.weight", Bytes(pointwise)}};
  }
};

TEST(QuantizedModel, LoadsFusesAndMixesWithFloatLayers) {
  const MixedModel mixed;
  const std::string path =
      WriteModel("quantized_mixed", mixed.Param(FloatSpelling(mixed.input.scale)), mixed.Members());
  const std::shared_ptr<const Model> model = Model::Load(path);
  EXPECT_EQ(model->operator_count(), 2u);  // the ReLU went into the quantised convolution

  // The file's scale went through %e: the layers below use what the file says.
  Uint8Quantization input = mixed.input;
  input.scale = std::stof(FloatSpelling(input.scale));
  std::vector<std::string> params = {"in_channels=2", "out_channels=3", "kernel_size=(3,3)",
                                     "padding=(1,1)"};
  const Node quantized_op = QuantizedOperator("lumen.QuantizedConv2d", params, {3, 2, 3, 3},
                                              mixed.quantized, input, mixed.bias);
  const Tensor tensor = Tensor::FromRowMajor(mixed.values, {1, 2, 5, 6});
  Activation relu;
  relu.kind = Activation::Kind::kRelu;
  const Tensor hidden = RunWithActivation(quantized_op, relu, tensor);
  const Node float_op = test_support::MakeOperator(
      "nn.Conv2d", {"in_channels=3", "out_channels=2", "kernel_size=(1,1)", "bias=False"},
      {{"weight", {{2, 3, 1, 1}, mixed.pointwise}}});
  const std::vector<float> expected = RunLayer(float_op, {hidden})[0].ToRowMajor();

  Session session(model);
  const std::vector<Tensor> outputs = session.Run({tensor});
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].shape(), (Shape{1, 2, 5, 6}));
  EXPECT_EQ(outputs[0].ToRowMajor(), expected);
}

TEST(QuantizedModel, RefusesAZeroScaleAtLoad) {
  const MixedModel mixed;
  const std::string path =
      WriteModel("quantized_zero_scale", mixed.Param("0.000000e+00"), mixed.Members());
  try {
    Model::Load(path);
    ADD_FAILURE() << "loaded";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("lumen.QuantizedConv2d 'qconv'"));
    EXPECT_THAT(error.what(), HasSubstr("input_scale must be positive and finite, got 0"));
  }
}

}  // namespace
}  // namespace lumen
