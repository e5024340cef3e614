#include "case_runner.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "lumen/base/error.hpp"
#include "lumen/io/golden_case.hpp"
#include "lumen/io/raw_file.hpp"
#include "lumen/layer/layer_registry.hpp"
#include "lumen/runtime/runtime_graph.hpp"

namespace lumen {
namespace test_support {

void ExpectCaseMatches(const std::string& directory) {
  const GoldenCase golden = ReadGoldenCase(directory);
  RuntimeGraph graph(golden.param_path, golden.bin_path);
  graph.Build();
  std::vector<TensorBatch> inputs;
  for (const auto& input : golden.inputs) inputs.push_back(ReadBatchFile(input.path, input.shape));
  const std::vector<TensorBatch> outputs = graph.Forward(inputs);
  ASSERT_EQ(outputs.size(), golden.outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    ASSERT_EQ(BatchShape(outputs[i]), golden.outputs[i].shape) << "output " << i;
    std::vector<float> got(ShapeElementCount(golden.outputs[i].shape));
    BatchToRowMajor(outputs[i], got.data());
    const std::vector<float> reference = ReadFloatFile(golden.outputs[i].path, got.size());
    const Comparison comparison =
        CompareWithTolerance(got, reference, golden.absolute_tolerance, golden.relative_tolerance);
    EXPECT_TRUE(comparison.passed())
        << golden.name << " output " << i << ": " << comparison.mismatch_count << " of "
        << comparison.element_count << " values outside atol " << golden.absolute_tolerance
        << " rtol " << golden.relative_tolerance << "; max abs error "
        << comparison.max_absolute_error << ", first at row-major index "
        << comparison.first_mismatch << " (got " << got[comparison.first_mismatch] << ", PyTorch "
        << reference[comparison.first_mismatch] << ")";
  }
}

void ExpectLayerCaseMatches(const std::string& name) {
  ExpectCaseMatches(std::string(LUMEN_SOURCE_DIR) + "/test/data/layers/" + name);
}

RuntimeOperator MakeOperator(const std::string& type, const std::vector<std::string>& params,
                             const std::map<std::string, Weight>& weights) {
  RuntimeOperator op;
  op.type = type;
  op.name = "op";
  for (const std::string& item : params) {
    const size_t equals = item.find('=');
    op.params[item.substr(0, equals)] = RuntimeParameter::Parse(item.substr(equals + 1));
  }
  for (const auto& [key, weight] : weights) {
    RuntimeAttribute& attribute = op.attributes[key];
    attribute.type = DataType::kFloat32;
    attribute.shape = weight.shape;
    std::vector<float> values = weight.values;
    values.resize(attribute.ElementCount(), 0.0f);
    attribute.data.resize(values.size() * sizeof(float));
    std::memcpy(attribute.data.data(), values.data(), attribute.data.size());
  }
  return op;
}

std::string LayerError(const RuntimeOperator& op, const std::vector<Shape>& input_shapes,
                       const std::vector<Shape>& output_shapes) {
  try {
    LayerRegistry::Create(op)->Prepare(input_shapes, output_shapes);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

}  // namespace test_support
}  // namespace lumen
