// lumen::Summarize: inputs, outputs, operator counts, parameters and planned memory of a model,
// on the bundled ResNet18 and on hand-written graphs whose shapes are left open.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lumen/error.hpp"
#include "lumen/model.hpp"
#include "lumen/session.hpp"
#include "lumen/summary.hpp"
#include "pnnx/param_reader.hpp"
#include "pnnx/pnnx_reader.hpp"
#include "runtime/model_internals.hpp"
#include "runtime/runtime_graph.hpp"
#include "support/source_directory.hpp"

namespace lumen {
namespace {

using ::testing::HasSubstr;

// The bundled ResNet18 (pnnx folded each BatchNorm into its convolution).
std::shared_ptr<const Model> LoadResNet18() {
  return Model::Load(test_support::SourceDirectory() + "/tmp/models/resnet18/model.pnnx.param");
}

// A model built from the text of a param file (no weights).
std::shared_ptr<const Model> ModelFromText(const std::string& text) {
  Graph graph = ParsePnnxParam(text, "graph.param");
  ResolvePnnxInputsAndOutputs(&graph);
  return ModelInternals::Wrap(std::make_unique<RuntimeGraph>(std::move(graph)));
}

// The count of `type` in the summary, 0 if absent.
size_t CountOf(const ModelSummary& summary, const std::string& type) {
  for (const auto& entry : summary.operators) {
    if (entry.type == type) return entry.count;
  }
  return 0;
}

TEST(ModelSummaryTest, ResNet18AtItsDeclaredShape) {
  const auto model = LoadResNet18();
  const ModelSummary summary = Summarize(*model);
  ASSERT_EQ(summary.inputs.size(), 1u);
  EXPECT_EQ(summary.inputs[0].name, model->input_names()[0]);
  EXPECT_EQ(summary.inputs[0].shape, (std::vector<int>{1, 3, 224, 224}));
  ASSERT_EQ(summary.outputs.size(), 1u);
  EXPECT_TRUE(summary.outputs[0].shape_known);
  EXPECT_EQ(summary.outputs[0].shape, (std::vector<int>{1, 1000}));
  // The sum of every @weight/@bias extent product in model.pnnx.param (20 convolutions with
  // their folded BatchNorm biases, and the classifier): torchvision's 11,689,512 less the 9,600
  // BatchNorm scales and shifts, plus 4,800 convolution biases.
  EXPECT_EQ(summary.parameter_count, 11684712u);
  EXPECT_EQ(summary.parameter_bytes, 4u * 11684712u);
  EXPECT_EQ(CountOf(summary, "nn.Conv2d"), 20u);
  EXPECT_EQ(CountOf(summary, "nn.Linear"), 1u);
  size_t total = 0;
  for (const auto& entry : summary.operators) total += entry.count;
  EXPECT_EQ(total, summary.operator_count);
  EXPECT_EQ(summary.operator_count, model->operator_count());
  EXPECT_GT(summary.fused_operator_count, 0u);  // the ReLUs fused into the convolutions
  for (size_t i = 1; i < summary.operators.size(); ++i) {
    EXPECT_GE(summary.operators[i - 1].count, summary.operators[i].count);
  }
  // The memory a session plans for a run at the same shape.
  Session session(model);
  session.SetInputShapes({{1, 3, 224, 224}});
  EXPECT_TRUE(summary.planned);
  EXPECT_EQ(summary.planned_activation_bytes, session.planned_activation_bytes());
  EXPECT_EQ(summary.separate_activation_bytes, session.separate_activation_bytes());
  EXPECT_LT(summary.planned_activation_bytes, summary.separate_activation_bytes);

  const std::string text = summary.ToString();
  EXPECT_THAT(text, HasSubstr("(1,3,224,224)"));
  EXPECT_THAT(text, HasSubstr("(1,1000)"));
  EXPECT_THAT(text, HasSubstr("parameters: 11684712 (46.7 MB)"));
  EXPECT_THAT(text, HasSubstr("nn.Conv2d"));
}

TEST(ModelSummaryTest, OtherInputShapesChangeOutputsAndMemory) {
  const auto model = LoadResNet18();
  const ModelSummary declared = Summarize(*model);
  const ModelSummary batch_two = Summarize(*model, {{2, 3, 160, 160}});
  EXPECT_EQ(batch_two.inputs[0].shape, (std::vector<int>{2, 3, 160, 160}));
  EXPECT_EQ(batch_two.outputs[0].shape, (std::vector<int>{2, 1000}));
  EXPECT_NE(batch_two.planned_activation_bytes, declared.planned_activation_bytes);
  EXPECT_EQ(batch_two.parameter_count, declared.parameter_count);
}

TEST(ModelSummaryTest, WrongShapeCountThrows) {
  const auto model = LoadResNet18();
  EXPECT_THROW(Summarize(*model, {{1, 3, 224, 224}, {1, 3, 224, 224}}), Error);
}

TEST(ModelSummaryTest, AnOpenExtentLeavesOutputsUnknownAndSaysWhy) {
  const auto model = ModelFromText(
      "7767517\n3 2\n"
      "pnnx.Input in 0 1 0 #0=(?,3)f32\n"
      "nn.ReLU relu 1 1 0 1\n"
      "pnnx.Output out 1 0 1\n");
  const ModelSummary summary = Summarize(*model);
  ASSERT_EQ(summary.inputs.size(), 1u);
  EXPECT_EQ(summary.inputs[0].shape, (std::vector<int>{-1, 3}));
  EXPECT_FALSE(summary.planned);
  EXPECT_THAT(summary.planning_note, HasSubstr("input '0'"));  // pnnx names operands by number
  EXPECT_FALSE(summary.outputs[0].shape_known);
  EXPECT_THAT(summary.ToString(), HasSubstr("(?,3)"));
  EXPECT_THAT(summary.ToString(), HasSubstr("not planned"));
  // Given shapes, it plans.
  const ModelSummary given = Summarize(*model, {{5, 3}});
  EXPECT_TRUE(given.planned);
  EXPECT_EQ(given.outputs[0].shape, (std::vector<int>{5, 3}));
}

TEST(ModelSummaryTest, ShapesTheLayersRefuseAreReportedNotThrown) {
  const auto model = LoadResNet18();
  const ModelSummary summary = Summarize(*model, {{1, 5, 224, 224}});  // 5 channels, not 3
  EXPECT_FALSE(summary.planned);
  EXPECT_FALSE(summary.planning_note.empty());
  EXPECT_FALSE(summary.outputs[0].shape_known);
}

}  // namespace
}  // namespace lumen
