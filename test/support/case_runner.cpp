#include "case_runner.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "io/golden_case.hpp"
#include "io/raw_file.hpp"
#include "layer/layer_config.hpp"
#include "layer/layer_registry.hpp"
#include "lumen/error.hpp"
#include "lumen/model.hpp"
#include "lumen/session.hpp"
#include "runtime/model_internals.hpp"
#include "runtime/runtime_graph.hpp"
#include "support/kernel_testing.hpp"
#include "support/source_directory.hpp"

namespace lumen {
namespace test_support {

namespace {

// True if `annotated` (with -1 for unknown extents) describes `shape`.
bool ShapeFitsAnnotation(const Shape& shape, const std::vector<int>& annotated) {
  if (annotated.size() != shape.size()) return false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (annotated[i] >= 0 && static_cast<uint32_t>(annotated[i]) != shape[i]) return false;
  }
  return true;
}

std::string AnnotationToString(const std::vector<int>& annotated) {
  std::string text = "(";
  for (size_t i = 0; i < annotated.size(); ++i) {
    if (i > 0) text += ",";
    text += annotated[i] < 0 ? "?" : std::to_string(annotated[i]);
  }
  return text + ")";
}

}  // namespace

bool ExpectCaseMatches(const std::string& directory, const CaseOptions& options) {
  GoldenCase golden = ReadGoldenCase(directory);
  ModelOptions model_options;
  model_options.weights_path = golden.bin_path;
  model_options.fuse = options.fuse;
  std::shared_ptr<const Model> model = Model::Load(golden.param_path, model_options);
  DropInputsOfInputlessModel(model->input_names().size(), &golden);
  SessionOptions session_options;
  session_options.threads = options.threads;
  Session session(model, session_options);
  std::vector<Tensor> inputs;
  for (const auto& input : golden.inputs) inputs.push_back(ReadTensorFile(input.path, input.shape));
  const std::vector<Tensor> outputs = session.Run(inputs);
  if (outputs.size() != golden.outputs.size()) {
    ADD_FAILURE() << golden.name << ": " << outputs.size() << " outputs, PyTorch has "
                  << golden.outputs.size();
    return false;
  }
  // A mistake usually shows in every output: the first mismatch is told in full, the others by
  // number only.
  std::string first_mismatch;
  std::vector<size_t> other_mismatches;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].shape() != golden.outputs[i].shape) {
      ADD_FAILURE() << golden.name << " output " << i << ": shape "
                    << ShapeToString(outputs[i].shape()) << ", PyTorch's is "
                    << ShapeToString(golden.outputs[i].shape);
      return false;
    }
    const std::vector<float> got = outputs[i].ToRowMajor();
    const std::vector<float> reference = ReadFloatFile(golden.outputs[i].path, got.size());
    const Comparison comparison =
        CompareWithTolerance(got, reference, golden.absolute_tolerance, golden.relative_tolerance);
    if (comparison.passed()) continue;
    if (!first_mismatch.empty()) {
      other_mismatches.push_back(i);
      continue;
    }
    first_mismatch = golden.name + " output " + std::to_string(i) + " (row-major): " +
                     Differences(got, "got", reference, "PyTorch", golden.absolute_tolerance,
                                 golden.relative_tolerance, comparison);
  }
  if (!first_mismatch.empty()) {
    std::string others;
    for (size_t i : other_mismatches) others += (others.empty() ? "" : ", ") + std::to_string(i);
    ADD_FAILURE() << first_mismatch
                  << (others.empty() ? "" : "; output(s) " + others + " differ from PyTorch's too");
    return false;
  }
  if (!options.check_annotated_shapes) return true;
  // Shape inference must reproduce what pnnx recorded while tracing PyTorch at this size.
  const RuntimeGraph& graph = ModelInternals::Graph(*model);
  bool shapes_match = true;
  for (const OperandReport& report : session.Operands()) {
    const int index = graph.FindOperand(report.name);
    if (index < 0) continue;
    const std::vector<int>& annotated = graph.operands()[index].annotated_shape;
    if (annotated.empty() || ShapeFitsAnnotation(report.shape, annotated)) continue;
    ADD_FAILURE() << golden.name << ": operand '" << report.name << "' (from " << report.producer
                  << ") inferred " << ShapeToString(report.shape) << ", the param file says "
                  << AnnotationToString(annotated);
    shapes_match = false;
  }
  return shapes_match;
}

void ExpectLayerCaseMatches(const std::string& name) {
  ExpectCaseMatches(lumen::test_support::SourceDirectory() + "/test/data/layers/" + name);
}

Node MakeOperator(const std::string& type, const std::vector<std::string>& params,
                  const std::map<std::string, Weight>& weights, int inputs, int outputs) {
  Node op;
  op.type = type;
  op.name = "op";
  for (int i = 0; i < inputs; ++i) op.input_names.push_back("in" + std::to_string(i));
  for (int i = 0; i < outputs; ++i) op.output_names.push_back("out" + std::to_string(i));
  for (const std::string& item : params) {
    const size_t equals = item.find('=');
    op.params[item.substr(0, equals)] = Parameter::Parse(item.substr(equals + 1));
  }
  for (const auto& [key, weight] : weights) {
    Attribute& attribute = op.attributes[key];
    attribute.type = DataType::kFloat32;
    attribute.shape = weight.shape;
    std::vector<float> values = weight.values;
    values.resize(attribute.ElementCount(), 0.0f);
    attribute.data.resize(values.size() * sizeof(float));
    // memcpy from or to the null pointer of an empty vector is undefined, even for 0 bytes.
    if (!values.empty()) std::memcpy(attribute.data.data(), values.data(), attribute.data.size());
  }
  return op;
}

std::vector<Shape> InferShapes(const Node& op, const std::vector<Shape>& input_shapes) {
  return LayerRegistry::Create(LayerConfig(op))->OutputShapes(input_shapes);
}

std::vector<float> StoreAsBFloat16(Node* op, const std::string& name) {
  Attribute& attribute = op->attributes.at(name);
  std::vector<float> values = attribute.ToFloats();
  attribute.type = DataType::kBFloat16;
  attribute.data.resize(values.size() * sizeof(uint16_t));
  for (size_t i = 0; i < values.size(); ++i) {
    const uint16_t bits = FloatToBFloat16(values[i]);
    std::memcpy(attribute.data.data() + i * sizeof(bits), &bits, sizeof(bits));
    values[i] = BFloat16ToFloat(bits);
  }
  return values;
}

std::string LayerError(const Node& op, const std::vector<Shape>& input_shapes) {
  try {
    std::unique_ptr<Layer> layer = LayerRegistry::Create(LayerConfig(op));
    const std::vector<Shape> output_shapes = layer->OutputShapes(input_shapes);
    TestContext context;
    layer->Prepare(input_shapes, output_shapes, context.prepare());
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

std::string LayerError(const Node& op, const std::vector<Shape>& input_shapes,
                       const std::vector<Shape>& expected_output_shapes) {
  const std::string error = LayerError(op, input_shapes);
  if (!error.empty()) return error;
  const std::vector<Shape> output_shapes = InferShapes(op, input_shapes);
  if (output_shapes == expected_output_shapes) return "";
  std::string message = "inferred output shapes";
  for (const Shape& shape : output_shapes) message += " " + ShapeToString(shape);
  message += " differ from the expected";
  for (const Shape& shape : expected_output_shapes) message += " " + ShapeToString(shape);
  return message;
}

TestContext::TestContext(int threads)
    : pool_(std::make_unique<ThreadPool>(threads)),
      workspace_(std::make_unique<Workspace>(threads)) {}

std::vector<Tensor> RunLayer(const Node& op, const std::vector<Tensor>& inputs, int threads) {
  std::unique_ptr<Layer> layer = LayerRegistry::Create(LayerConfig(op));
  std::vector<Shape> input_shapes;
  std::vector<const Tensor*> input_pointers;
  for (const Tensor& input : inputs) {
    input_shapes.push_back(input.shape());
    input_pointers.push_back(&input);
  }
  // Every input's values are known here, as they are to a session for constants and shapes.
  const std::vector<Shape> output_shapes =
      layer->OutputShapesFromValues(input_shapes, input_pointers);
  TestContext context(threads);
  PrepareContext prepare = context.prepare();
  prepare.input_values = input_pointers;
  std::unique_ptr<LayerState> state = layer->Prepare(input_shapes, output_shapes, prepare);
  std::vector<Tensor> outputs;
  for (const Shape& shape : output_shapes) outputs.emplace_back(shape);
  std::vector<Tensor*> output_pointers;
  for (Tensor& output : outputs) output_pointers.push_back(&output);
  ForwardContext forward_context{context.compute(), state.get()};
  layer->Forward(input_pointers, output_pointers, forward_context);
  return outputs;
}

std::string RunLayerError(const Node& op, const std::vector<Tensor>& inputs) {
  try {
    RunLayer(op, inputs);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

}  // namespace test_support
}  // namespace lumen
